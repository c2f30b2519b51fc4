// The project's Node.js 24 (the `node` package), for child processes: the machine's own node may be older.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NODE = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'node');

const START_SCRIPT = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts.start as string;

/**
 * The arguments `npm start` gives node (its flags, preload and src/main.ts) for a process with this
 * environment, so a child starts exactly as it does: the script is expanded by the shell, as npm
 * runs it (the young generation's size depends on DATABASE_URL).
 */
export function startArgs(env: Record<string, string | undefined> = process.env): string[] {
  const expanded = execFileSync('sh', ['-c', `echo ${START_SCRIPT}`], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: env.DATABASE_URL ?? '' }, encoding: 'utf8' });
  return expanded.trim().split(/\s+/).slice(1);
}

/** startArgs() for this process's environment. */
export const START_ARGS: string[] = startArgs();

/** Set in a process already started with the flags of `npm start` (bench/_as-npm-start.ts). */
export const NODE_FLAGS_SET = 'GATEWAY_BENCH_START_FLAGS';
