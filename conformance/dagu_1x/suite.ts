// The case format of the Dagu 1.x conformance suite. It is the DAG-language suite's format (harness.ts there)
// plus what this suite needs: which files to observe, where this product differs from 1.30.2 on purpose, and
// what `dagu migrate` must do with the file. Every `expect:` block is written by
// `node --import tsx scripts/dagu1Expectations.mjs --write` from Dagu 1.30.2's own runs, never by hand.

import { z } from 'zod';
import { Case, discoverFeatures, type Feature } from '../dagu_dag_language/harness';

export const SUITE_1X_DIR = import.meta.dirname;

/** Where the recorded expectations come from (the `source:` of every case). */
export const DAGU1_SOURCE = 'Dagu 1.30.2, recorded by scripts/dagu1Expectations.mjs';

export const Case1x = Case.extend({
  /** Files in the case directory whose content (or absence) after the run becomes part of `expect`. */
  observe: z
    .object({
      files: z.array(z.string()).default([]),
      /** Steps whose stdout is 1.30.2's own chatter (e.g. its mail executor's progress lines): not recorded. */
      skip_stdout: z.array(z.string()).default([]),
      /** A text unique to the case that a mail must contain (the SMTP sink is asked for it). */
      mail: z.string().optional(),
    })
    .strict()
    .default({ files: [], skip_stdout: [] }),
  /**
   * This product answers differently from 1.30.2 on purpose (a refused feature, a hostile file): the test
   * checks `expect` here instead of the recorded one; `reason` says why.
   */
  differs: z.object({ reason: z.string(), expect: Case.shape.expect }).strict().optional(),
  /** The error line of 1.30.2 for a case that failed there (written by the expectations script). */
  dagu1_says: z.string().optional(),
  /**
   * What `dagu migrate` must do with the file when it is not simply migrated: `refused` (a text the
   * `not migrated: REASON` line contains), `already_2x` (a file valid in both spellings is left as it is), or
   * `noted` (migrated with a `note:` line containing the text, naming a difference 2.x has by design; the
   * migrated file must load, and its outcome is not compared).
   */
  migrate: z
    .union([
      z.object({ refused: z.string() }).strict(),
      z.object({ already_2x: z.literal(true) }).strict(),
      z.object({ noted: z.string() }).strict(),
    ])
    .optional(),
});
export type Case1x = z.infer<typeof Case1x>;

export function discover1x(): Array<Feature<Case1x>> {
  return discoverFeatures(SUITE_1X_DIR, Case1x);
}
