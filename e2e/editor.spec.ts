// The DAG editor on a DAG's page: inline errors of `dagu validate` refuse a save, a valid edit is saved
// atomically after the diff, a concurrent edit on disk raises the three-way view, templates, rename and
// delete; and with server.permissions.write_dags false no write control is shown and the API answers 403.

import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { Server } from './cluster';
import { apiGet, expect, screenshot, test } from './clusterTest';

const ETL = `description: Moves data
steps:
  - name: extract
    run: echo extract
  - name: load
    run: echo load
    depends: [extract]
`;

/** Replaces the editor's whole text as a paste would. */
async function setEditorText(page: Page, text: string) {
  const content = page.getByTestId('dag-editor-content');
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

async function openDag(page: Page, server: Server, name: string) {
  await page.goto(`${server.url}/dags/${name}`);
  await expect(page.getByTestId('dag-editor-content')).toBeVisible();
}

test('an invalid edit shows its error with the line and cannot be saved; a valid one replaces the file atomically', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('etl', ETL);
  const server = await cluster.startServer();
  const file = path.join(cluster.home, 'dags', 'etl.yaml');
  await openDag(page, server, 'etl');
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);
  await expect(page.getByTestId('spec-review')).toBeDisabled(); // nothing changed yet

  // A dependency on a step that does not exist, on line 7.
  const invalid = ETL.replace('depends: [extract]', 'depends: [ghost]');
  await setEditorText(page, invalid);
  const error = page.getByTestId('spec-error').first();
  await expect(error).toHaveText(/^etl\.yaml:7:\d+: steps\[1\]\.depends: /);
  await expect(page.getByTestId('spec-check')).toHaveAttribute('aria-live', 'polite');
  await expect(page.locator('.cm-lintRange-error').first()).toBeVisible();
  await expect(page.getByTestId('spec-review')).toBeDisabled();
  // The server refuses it too, whatever a client sends.
  const version = (await apiGet<{ version: string }>(server, '/api/v1/dags/etl/spec')).version;
  const refused = await fetch(`${server.url}/api/v1/dags/etl/spec`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: server.url },
    body: JSON.stringify({ yaml: invalid, base_version: version }),
  });
  expect(refused.status).toBe(422);
  expect(await readFile(file, 'utf8')).toBe(ETL);
  // The error list moves the cursor to the problem.
  await error.click();
  await expect(page.getByTestId('key-doc')).toHaveAttribute('data-key', 'steps.depends');
  await screenshot(page, testInfo, 'editor-invalid');

  const valid = ETL.replace('run: echo load', 'run: echo load everything');
  await setEditorText(page, valid);
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);
  const before = await stat(file);
  await page.getByTestId('spec-review').click();
  await expect(page.getByTestId('spec-diff')).toContainText('echo load everything');
  await expect(page.getByRole('heading', { name: 'Review the changes to etl.yaml' })).toBeFocused();
  await screenshot(page, testInfo, 'editor-review');
  await page.getByTestId('spec-confirm-save').click();
  await expect(page.getByTestId('spec-notice')).toHaveText(/^Saved etl\.yaml/);
  expect(await readFile(file, 'utf8')).toBe(valid);
  // Replaced by a rename (a new inode), never rewritten in place: a reader sees the old file or the new one.
  expect((await stat(file)).ino).not.toBe(before.ino);
  const saved = await apiGet<{ events: Array<{ data: { dag: string } }> }>(
    server,
    '/api/v1/events?type=dag.saved',
  );
  expect(saved.events.map((e) => e.data.dag)).toEqual(['etl']);
});

test('a save after someone changed the file on disk shows base, yours and disk, and saves the merge', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('etl', ETL);
  const server = await cluster.startServer();
  const file = path.join(cluster.home, 'dags', 'etl.yaml');
  await openDag(page, server, 'etl');
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);

  const mine = ETL.replace('description: Moves data', 'description: Moves data nightly');
  await setEditorText(page, mine);
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);
  const disk = ETL.replace('run: echo extract', 'run: echo extract from disk');
  await writeFile(file, disk); // another operator, or git pull

  await page.getByTestId('spec-review').click();
  await page.getByTestId('spec-confirm-save').click();
  const conflict = page.getByTestId('spec-conflict');
  await expect(conflict.getByRole('heading')).toHaveText(/changed on disk since you loaded it/);
  await expect(page.getByTestId('conflict-base-disk')).toContainText('echo extract from disk');
  const merge = page.getByTestId('conflict-merge');
  await expect(merge.getByRole('textbox', { name: 'The text on disk now (read-only)' })).toContainText(
    'echo extract from disk',
  );
  await expect(merge.getByRole('textbox', { name: 'Your text, to merge into' })).toContainText(
    'Moves data nightly',
  );
  expect(await readFile(file, 'utf8')).toBe(disk);
  await screenshot(page, testInfo, 'editor-conflict');

  // Take the disk's change of the first step into mine with its arrow (the second chunk; the first is my
  // description), then save the merge.
  await merge.locator('.cm-merge-revert button').nth(1).click();
  await expect(merge.getByRole('textbox', { name: 'Your text, to merge into' })).toContainText(
    'echo extract from disk',
  );
  await page.getByTestId('conflict-use-merge').click();
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);
  await page.getByTestId('spec-review').click();
  await page.getByTestId('spec-confirm-save').click();
  await expect(page.getByTestId('spec-notice')).toHaveText(/^Saved/);
  const merged = await readFile(file, 'utf8');
  expect(merged).toContain('Moves data nightly');
  expect(merged).toContain('echo extract from disk');
});

test('a DAG made from a template can be renamed and deleted, each after a confirmation', async ({
  cluster,
  page,
}) => {
  const server = await cluster.startServer();
  const dags = path.join(cluster.home, 'dags');
  await page.goto(`${server.url}/dags`);
  await page.getByRole('button', { name: 'New DAG…' }).click();
  const create = page.getByTestId('new-dag-dialog');
  await create.getByTestId('new-dag-name').fill('../escape');
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(create.getByRole('alert')).toHaveText(/The name uses letters/);
  await create.getByTestId('new-dag-name').fill('nightly');
  await create.getByTestId('new-dag-template').selectOption('scheduled');
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/dags\/nightly$/);
  expect(await readFile(path.join(dags, 'nightly.yaml'), 'utf8')).toContain('schedule: "0 2 * * *"');
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);

  await page.getByRole('button', { name: 'Rename…' }).click();
  const rename = page.getByTestId('rename-dialog');
  await rename.getByTestId('rename-input').fill('nightly-report');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(page).toHaveURL(/\/dags\/nightly-report$/);
  await expect(page.getByTestId('dag-name')).toHaveText('nightly-report');
  await expect(stat(path.join(dags, 'nightly.yaml'))).rejects.toThrow();
  expect(await readFile(path.join(dags, 'nightly-report.yaml'), 'utf8')).toContain('schedule:');

  await page.getByRole('button', { name: 'Delete…' }).click();
  const del = page.getByTestId('delete-dialog');
  await expect(del.getByRole('button', { name: 'Cancel' })).toBeFocused(); // a stray Enter does not delete
  await del.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/dags$/);
  await expect(stat(path.join(dags, 'nightly-report.yaml'))).rejects.toThrow();

  const { events } = await apiGet<{ events: Array<{ type: string }> }>(
    server,
    '/api/v1/events?type=dag.created&type=dag.renamed&type=dag.deleted',
  );
  expect(events.map((e) => e.type)).toEqual(['dag.created', 'dag.renamed', 'dag.deleted']);
});

test('the editor and its buttons are reached with the keyboard; Esc then Tab leaves the editor', async ({
  cluster,
  page,
}) => {
  // Two type-less steps without depends: valid, with the warning that Dagu 1.x would have chained them.
  await cluster.writeDag('etl', ETL.replace('    depends: [extract]\n', ''));
  const server = await cluster.startServer();
  await openDag(page, server, 'etl');
  const content = page.getByTestId('dag-editor-content');
  await page.getByRole('button', { name: 'Delete…' }).focus();
  await page.keyboard.press('Tab');
  await expect(content).toBeFocused();
  await expect(page.getByTestId('dag-editor').locator('.cm-editor')).toHaveCSS('outline-style', 'solid');
  await page.keyboard.press('Tab'); // indents: Tab stays in the editor
  await expect(content).toBeFocused();
  await page.keyboard.press('ControlOrMeta+z');
  await page.keyboard.press('End');
  await page.keyboard.insertText(' # reviewed');
  await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);
  await expect(page.getByTestId('spec-review')).toBeEnabled();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  // Out of the editor, onto the next control: the validation list's first warning (this DAG has one), then
  // the save button.
  const warning = page.getByTestId('spec-warnings').getByRole('button').first();
  await expect(warning).toBeFocused();
  await expect(warning).toHaveCSS('outline-style', 'solid');
  const review = page.getByTestId('spec-review');
  for (let i = 0; i < 5 && !(await review.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press('Tab');
  }
  await expect(review).toBeFocused();
  await expect(review).toHaveCSS('outline-style', 'solid');
  // Ctrl/Cmd-S in the editor opens the review too.
  await content.click();
  await page.keyboard.press('ControlOrMeta+s');
  await expect(page.getByTestId('spec-review-panel')).toBeVisible();
});

test('with server.permissions.write_dags false there is no write control and the API answers 403', async ({
  cluster,
  page,
}) => {
  await cluster.writeDag('etl', ETL);
  const server = await cluster.startServer('server', {
    env: { DAGU_SERVER_PERMISSIONS_WRITE_DAGS: 'false' },
  });
  await page.goto(`${server.url}/dags`);
  await expect(page.getByTestId('dag-row-etl')).toBeVisible();
  await expect(page.getByRole('button', { name: 'New DAG…' })).toHaveCount(0);

  await openDag(page, server, 'etl');
  await expect(page.getByTestId('dag-read-only')).toContainText('server.permissions.write_dags');
  await expect(page.getByTestId('dag-editor-content')).toContainText('echo extract');
  await expect(page.getByTestId('dag-editor-content')).toHaveAttribute('aria-readonly', 'true');
  for (const label of ['Rename…', 'Delete…', 'Review and save…', 'Discard changes']) {
    await expect(page.getByRole('button', { name: label })).toHaveCount(0);
  }

  const version = (await apiGet<{ version: string }>(server, '/api/v1/dags/etl/spec')).version;
  const post = (p: string, body: unknown) =>
    fetch(`${server.url}${p}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: server.url },
      body: JSON.stringify(body),
    });
  for (const [p, body] of [
    ['/api/v1/dags/etl/spec', { yaml: ETL, base_version: version }],
    ['/api/v1/dags', { name: 'new' }],
    ['/api/v1/dags/etl/rename', { new_name: 'other' }],
    ['/api/v1/dags/etl/delete', {}],
  ] as const) {
    const r = await post(p, body);
    expect(r.status, p).toBe(403);
    expect((await r.json()).error.message).toMatch(/server\.permissions\.write_dags is false/);
  }
});

test('axe-core finds no serious accessibility violation in the editor, its errors and its review', async ({
  cluster,
  page,
}) => {
  await cluster.writeDag('etl', ETL);
  const server = await cluster.startServer();
  const serious = async () =>
    // The editor's section: the rest of the page belongs to other views and their own checks.
    (await new AxeBuilder({ page }).include('[data-testid="dag-definition"]').analyze()).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openDag(page, server, 'etl');
    await expect(page.getByTestId('spec-check-summary')).toHaveText(/^Valid/);
    expect(await serious(), scheme).toEqual([]);
    await setEditorText(page, ETL.replace('depends: [extract]', 'depends: [ghost]'));
    await expect(page.getByTestId('spec-error').first()).toBeVisible();
    expect(await serious(), scheme).toEqual([]);
    await setEditorText(page, ETL.replace('echo load', 'echo load all'));
    await page.getByTestId('spec-review').click();
    await expect(page.getByTestId('spec-diff')).toBeVisible();
    expect(await serious(), scheme).toEqual([]);
  }
});
