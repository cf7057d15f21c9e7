// The console's search, decided without I/O: which DAGs a query finds (by name, tag, description, step name
// and step command) and in what order, and which run IDs it names. Every word of the query must be found
// somewhere in a DAG; where it is found decides the score (a name beats a tag beats a command).

/** What a DAG offers to the search. */
export interface SearchDoc {
  name: string;
  description: string;
  tags: string[];
  steps: Array<{ name: string; commands: string[] }>;
}

/** Where a word of the query was found. */
export type MatchField = 'name' | 'tag' | 'description' | 'step' | 'command';

/** A DAG the query found. */
export interface DagHit {
  name: string;
  score: number;
  /** The fields the words were found in, best first, without repeats. */
  fields: MatchField[];
  /** The matching step command or description, for the result list (cut to 160 characters). */
  snippet: string | null;
}

const WEIGHT = {
  nameExact: 100,
  namePrefix: 60,
  name: 40,
  tagExact: 35,
  tag: 25,
  description: 15,
  step: 12,
  command: 10,
} as const;

/** The words of a query: lowercased, split on white space, empty ones dropped, at most 8. */
export function queryWords(query: string): string[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, 8);
}

interface WordMatch {
  score: number;
  field: MatchField;
  snippet: string | null;
}

function bestMatch(doc: SearchDoc, word: string): WordMatch | null {
  const name = doc.name.toLowerCase();
  if (name === word) return { score: WEIGHT.nameExact, field: 'name', snippet: null };
  if (name.startsWith(word)) return { score: WEIGHT.namePrefix, field: 'name', snippet: null };
  if (name.includes(word)) return { score: WEIGHT.name, field: 'name', snippet: null };
  const tags = doc.tags.map((t) => t.toLowerCase());
  if (tags.includes(word)) return { score: WEIGHT.tagExact, field: 'tag', snippet: null };
  if (tags.some((t) => t.includes(word))) return { score: WEIGHT.tag, field: 'tag', snippet: null };
  if (doc.description.toLowerCase().includes(word)) {
    return { score: WEIGHT.description, field: 'description', snippet: cut(doc.description) };
  }
  for (const step of doc.steps) {
    if (step.name.toLowerCase().includes(word)) return { score: WEIGHT.step, field: 'step', snippet: null };
  }
  for (const step of doc.steps) {
    const command = step.commands.find((c) => c.toLowerCase().includes(word));
    if (command !== undefined) {
      return { score: WEIGHT.command, field: 'command', snippet: `${step.name}: ${cut(command)}` };
    }
  }
  return null;
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/** The DAGs in which every word of `query` is found, best first (then by name); none for an empty query. */
export function rankDags(docs: readonly SearchDoc[], query: string, limit = 50): DagHit[] {
  const words = queryWords(query);
  if (words.length === 0) return [];
  const hits: DagHit[] = [];
  for (const doc of docs) {
    let score = 0;
    const fields: MatchField[] = [];
    let snippet: string | null = null;
    let all = true;
    for (const word of words) {
      const m = bestMatch(doc, word);
      if (!m) {
        all = false;
        break;
      }
      score += m.score;
      if (!fields.includes(m.field)) fields.push(m.field);
      snippet ??= m.snippet;
    }
    if (all) hits.push({ name: doc.name, score, fields, snippet });
  }
  hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return hits.slice(0, limit);
}

/** The run-ID prefix a query may be: one word of run-ID characters (IDs are matched as typed), else null. */
export function runIdQuery(query: string): string | null {
  const trimmed = query.trim();
  return /^[A-Za-z0-9_-]{1,64}$/.test(trimmed) ? trimmed : null;
}

/** Run IDs starting with `prefix`: the exact one first, then the others in order, at most `limit`. */
export function rankRunIds(ids: readonly string[], prefix: string, limit = 20): string[] {
  const found = ids.filter((id) => id.startsWith(prefix));
  found.sort((a, b) => (a === prefix ? -1 : b === prefix ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return found.slice(0, limit);
}
