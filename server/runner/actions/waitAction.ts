// Dagu's `wait.*` actions (`action: wait.<op>`, legacy `type: wait`): wait for a duration, until a
// timestamp, for a file to appear or disappear, or for a URL to answer with the expected status. They
// print nothing. A stop or the step's timeout (the abort signal) ends the wait at once, as a failure;
// there is no timeout of their own beyond the step's `timeout_sec`.

import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { errnoCode, fsErrorText } from './fsErrorText';
import { sendHttpRequest } from './httpRequest';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';
import { readWaitConfig, WaitConfigError, type WaitConfig } from './waitConfig';

/** The longest delay a Node timer takes at once; longer waits are slept in pieces. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A check that cannot go on (a file that cannot be looked at); the wait fails with it. */
class WaitCheckError extends Error {}

export async function runWaitAction(op: string, ctx: ActionContext): Promise<ActionResult> {
  let cfg: WaitConfig;
  try {
    cfg = readWaitConfig(op, ctx.with);
  } catch (e) {
    if (e instanceof WaitConfigError) return actionFailed(e.message);
    throw e;
  }
  const { signal } = ctx;
  try {
    switch (cfg.op) {
      case 'duration':
        await sleep(cfg.durationMs, signal);
        break;
      case 'until': {
        const now = ctx.clock ? ctx.clock.nowMs() : Date.now();
        if (cfg.untilMs > now) await sleep(cfg.untilMs - now, signal);
        break;
      }
      case 'file': {
        const path = isAbsolute(cfg.path) ? cfg.path : resolve(ctx.workingDir, cfg.path);
        await poll(cfg.pollIntervalMs, signal, () => fileInState(path, cfg.state));
        break;
      }
      case 'http':
        await poll(cfg.pollIntervalMs, signal, () => answersWith(cfg, signal));
        break;
    }
  } catch (e) {
    if (signal.aborted) return actionFailed(`wait ${cfg.op}: stopped before the wait ended`);
    if (e instanceof WaitCheckError) return actionFailed(`wait ${cfg.op}: ${e.message}`);
    throw e;
  }
  return ACTION_OK;
}

/** Sleeps, in pieces a timer can hold; rejects as soon as the signal aborts. */
async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  let left = ms;
  while (left > 0) {
    const step = Math.min(left, MAX_TIMER_MS);
    await sleepFor(step, undefined, { signal });
    left -= step;
  }
}

/** Checks at once, then again after each interval, until the check says yes. */
async function poll(intervalMs: number, signal: AbortSignal, check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    if (await check()) return;
    await sleep(intervalMs, signal);
  }
}

/** Whether the path exists (symlinks followed) or is missing; other errors end the wait. */
async function fileInState(path: string, state: WaitConfig['state']): Promise<boolean> {
  try {
    await stat(path);
    return state === 'exists';
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return state === 'missing';
    throw new WaitCheckError(fsErrorText(e));
  }
}

/** One request; a network error or a timeout is "not yet", like any other status than the expected one. */
async function answersWith(cfg: WaitConfig, signal: AbortSignal): Promise<boolean> {
  const attempt = AbortSignal.any([signal, AbortSignal.timeout(cfg.requestTimeoutMs)]);
  try {
    const { response } = await sendHttpRequest(
      {
        method: cfg.method,
        url: cfg.url!,
        timeoutSec: 0,
        headers: cfg.headers,
        query: {},
        body: cfg.body,
        form: {},
        files: {},
        silent: true,
        debug: false,
        json: false,
        output: null,
        skipTlsVerify: false,
      },
      attempt,
    );
    response.destroy(); // the body is not needed, and the connection is not reused
    return response.statusCode === cfg.status;
  } catch {
    signal.throwIfAborted();
    return false;
  }
}
