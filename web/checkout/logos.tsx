// Coin marks drawn for this page (simple original shapes in each coin's colour, no artwork taken
// from elsewhere), in the bundle: the page makes no outside request. A token on a chain that is
// not its own carries the chain's mark as a small badge. Decorative: the text beside names them.
import type { JSX } from 'preact';
import { tokenDef } from './lib/networks.ts';

interface Mark {
  color: string;
  glyph: JSX.Element;
}

const W = { fill: 'none', stroke: '#fff', 'stroke-width': 2.6, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' } as const;

const MARKS: Record<string, Mark> = {
  BTC: { color: '#f7931a', glyph: <path {...W} d="M12 9v14M12 9h5a3.5 3.5 0 0 1 0 7h-5m0 0h6a3.5 3.5 0 0 1 0 7h-6M14 6.5V9m3-2.5V9m-3 14v2.5m3-2.5v2.5" /> },
  LTC: { color: '#345d9d', glyph: <path {...W} d="M14 8l-2.5 15H22M9.5 18l9-4" /> },
  DOGE: { color: '#c2a633', glyph: <path {...W} d="M12 9h3.5a7 7 0 0 1 0 14H12zM9 16h8" /> },
  ETH: { color: '#627eea', glyph: <g fill="#fff"><path d="M16 5l7 11.4-7 4.1-7-4.1z" /><path d="M16 22.2l7-4.2-7 9.5-7-9.5z" opacity=".8" /></g> },
  BNB: { color: '#f0b90b', glyph: <g fill="#fff"><path d="M16 12.5l3.5 3.5-3.5 3.5-3.5-3.5z" /><path d="M16 6l2.2 2.2-2.2 2.2-2.2-2.2zM16 21.6l2.2 2.2-2.2 2.2-2.2-2.2zM8.2 13.8l2.2 2.2-2.2 2.2L6 16zM23.8 13.8L26 16l-2.2 2.2-2.2-2.2z" /></g> },
  TRX: { color: '#d9002a', glyph: <path {...W} d="M8 9l16 3-9 12zM8 9l7 15M24 12l-9 3.5" /> },
  XRP: { color: '#1f2937', glyph: <path {...W} d="M8.5 9c3 4 4.5 5 7.5 5s4.5-1 7.5-5M8.5 23c3-4 4.5-5 7.5-5s4.5 1 7.5 5" /> },
  USDT: { color: '#1f9d77', glyph: <path {...W} d="M9.5 9.5h13M16 9.5V24M10 15.5c0 1.2 2.7 2 6 2s6-.8 6-2-2.7-2-6-2-6 .8-6 2z" /> },
  USDC: { color: '#2775ca', glyph: <g><circle cx="16" cy="16" r="9" fill="none" stroke="#fff" stroke-width="1.6" /><path {...W} stroke-width={2.2} d="M19 12.8c-.6-1-1.7-1.5-3-1.5-1.7 0-3 .9-3 2.2 0 3 6 1.7 6 4.6 0 1.3-1.3 2.3-3 2.3-1.4 0-2.6-.6-3.2-1.6M16 9.5v2M16 20.5v2" /></g> },
};

/** The chain's own coin, whose mark badges a token on it. */
const CHAIN_COIN: Record<string, string> = { ethereum: 'ETH', bsc: 'BNB', tron: 'TRX' };

function Disc({ mark, cx = 16, cy = 16, r = 16 }: { mark: Mark; cx?: number; cy?: number; r?: number }) {
  const scale = r / 16;
  return (
    <g transform={`translate(${cx - r} ${cy - r}) scale(${scale})`}>
      <circle cx="16" cy="16" r="16" fill={mark.color} />
      {mark.glyph}
    </g>
  );
}

export function CoinLogo({ token, size = 32 }: { token: string; size?: number }) {
  const coin = token.split('_')[0];
  const mark = MARKS[coin];
  const def = tokenDef(token);
  const badge = def && !def.native ? MARKS[CHAIN_COIN[def.chain] ?? ''] : undefined;
  return (
    <svg class="logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      {mark ? <Disc mark={mark} /> : <circle cx="16" cy="16" r="16" fill="#6b7280" />}
      {badge && (
        <g>
          <circle cx="25.5" cy="25.5" r="7" fill="var(--surface)" />
          <Disc mark={badge} cx={25.5} cy={25.5} r={5.8} />
        </g>
      )}
    </svg>
  );
}
