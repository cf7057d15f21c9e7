'use client';
// The files a run's steps left in its artifacts directory (DAG_RUN_ARTIFACTS_DIR): path and size, each with a
// download link. Shown only when the run has some; listed again while the run runs and once when it ends.

import { useQuery } from '@tanstack/react-query';
import type { RunStatus } from '@/components/apiTypes';
import { linkClass, tableClass, TableHead, tdClass } from '../Panels';
import { isTerminal, runArtifactsQuery } from '../queries';
import { artifactDownloadUrl, formatBytes } from './runArtifactLinks';

export function RunArtifacts({ run }: { run: RunStatus }) {
  const live = !isTerminal(run.status);
  const { data } = useQuery(runArtifactsQuery(run.run_id, `${run.attempt}:${run.status}`, live));
  const artifacts = data?.artifacts ?? [];
  if (artifacts.length === 0) return null;
  return (
    <section aria-labelledby="artifacts-heading" className="flex flex-col gap-2" data-testid="run-artifacts">
      <h2 id="artifacts-heading" className="text-lg font-semibold">
        Artifacts
      </h2>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table className={tableClass}>
          <TableHead columns={['Path', 'Size', '']} />
          <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {artifacts.map((a) => (
              <tr key={a.path} data-testid="artifact-row" data-path={a.path}>
                <td className={`${tdClass} font-mono text-xs break-all`}>{a.path}</td>
                <td className={`${tdClass} whitespace-nowrap tabular-nums`}>{formatBytes(a.size)}</td>
                <td className={tdClass}>
                  <a
                    href={artifactDownloadUrl(run.run_id, a.path)}
                    download
                    className={linkClass}
                    aria-label={`Download ${a.path}`}
                  >
                    Download
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
