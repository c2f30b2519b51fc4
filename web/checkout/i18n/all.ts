// Every catalogue at once, for the server (the page's <title> and loading line in the payer's
// language, and the catalogue test). The page itself loads one at a time (lib/i18n.ts).
import type { Language } from '../lib/languages.ts';
import type { Messages } from './en.ts';
import en from './en.ts';
import es from './es.ts';
import pt from './pt.ts';
import ru from './ru.ts';
import zh from './zh.ts';
import tr from './tr.ts';

export const CATALOGUES: Readonly<Record<Language, Messages>> = { en, es, pt, ru, zh, tr };
