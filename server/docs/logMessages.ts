// Finds the log messages the product can print, from its source: every `x.debug|info|warn|error(...)` call
// whose first argument is a string, so that docs/troubleshooting.md can be checked against the code.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['debug', 'info', 'warn', 'error']);

/** One message literal found in a log call. */
export interface LogMessage {
  level: LogLevel;
  /** The message, or for a template literal the text before its first `${`. */
  text: string;
  /** False when `text` is only the static start of a template literal. */
  complete: boolean;
  /** `server/scheduler/cronLoop.ts:138`, relative to the directory scanned from. */
  where: string;
}

/**
 * The messages of the log calls in one source text. The first argument is read as a literal, a template
 * (its static start), a `cond ? a : b` (both branches) or `'a' + 'b'` (joined while the parts are literals).
 * A message held in a variable or built by a function is not a literal and is not returned.
 */
export function extractLogMessages(source: string, fileName: string): LogMessage[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LogMessage[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      LEVELS.has(node.expression.name.text) &&
      node.arguments.length > 0
    ) {
      const level = node.expression.name.text as LogLevel;
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      for (const m of messagesOf(node.arguments[0])) {
        if (m.text.trim() !== '') found.push({ level, ...m, where: `${fileName}:${line}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

type Piece = { text: string; complete: boolean };

function messagesOf(expr: ts.Expression): Piece[] {
  if (ts.isParenthesizedExpression(expr)) return messagesOf(expr.expression);
  if (ts.isConditionalExpression(expr)) return [...messagesOf(expr.whenTrue), ...messagesOf(expr.whenFalse)];
  const start = literalStart(expr);
  return start === null ? [] : [start];
}

/** The static text an expression starts with, or null when it does not start with a literal. */
function literalStart(expr: ts.Expression): Piece | null {
  if (ts.isParenthesizedExpression(expr)) return literalStart(expr.expression);
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) {
    return { text: expr.text, complete: true };
  }
  if (ts.isTemplateExpression(expr)) return { text: expr.head.text, complete: false };
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const left = literalStart(expr.left);
    if (left === null || !left.complete) return left;
    const right = literalStart(expr.right);
    if (right === null) return { text: left.text, complete: false };
    return { text: left.text + right.text, complete: right.complete };
  }
  return null;
}

/** Source files that ship: `.ts` under `dir`, without tests, test helpers and the lock simulation. */
export function productSourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) {
        if (!['testing', 'sim', 'node_modules'].includes(entry.name)) walk(full);
      } else if (isProductSource(entry.name)) {
        out.push(full);
      }
    }
  };
  walk(dir);
  return out.sort();
}

function isProductSource(name: string): boolean {
  if (!name.endsWith('.ts') || name.endsWith('.d.ts')) return false;
  if (/\.(test|contract)\.ts$/.test(name)) return false;
  // testSupport.ts, testServices.ts, testFakeDagu.ts, testRunStatus.ts: helpers only tests import.
  return !/^test[A-Z]/.test(name);
}

/** Every log message literal of the product's sources under `root/server`. */
export function productLogMessages(root: string): LogMessage[] {
  return productSourceFiles(path.join(root, 'server')).flatMap((file) =>
    extractLogMessages(readFileSync(file, 'utf8'), path.relative(root, file)),
  );
}
