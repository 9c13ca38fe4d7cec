// @ts-check
// The set-up every end-to-end test file shares: the static server and Debian's headless
// Chromium started before the file's tests and stopped after them (node:test hooks).
import { before, after } from 'node:test';
import { startServer, launch } from './harness.js';

/**
 * Registers the hooks; the returned object holds the server's `url`, the `browser` and a
 * default `context` once the first test runs.
 * @returns {{ url: string, browser: import('playwright-core').Browser, context: import('playwright-core').BrowserContext }}
 */
export function session() {
  const env = /** @type {any} */ ({});
  /** @type {(() => void) | undefined} */
  let stop;
  before(async () => {
    const server = await startServer();
    stop = server.stop;
    env.url = server.url;
    Object.assign(env, await launch());
  });
  after(async () => {
    await env.browser?.close();
    stop?.();
  });
  return env;
}
