// The footer of a list shown a page at a time: how many rows are shown of how many, and a button for the next
// page. Nothing when every row is shown.

import { buttonClass } from '../Panels';

export function ShowMore({
  shown,
  total,
  page,
  onMore,
  testId,
}: {
  shown: number;
  total: number;
  page: number;
  onMore: () => void;
  testId: string;
}) {
  if (total <= shown) return null;
  return (
    <div className="flex items-center gap-3 text-sm">
      <span role="status" data-testid={testId}>
        Showing {shown} of {total}
      </span>
      <button type="button" className={buttonClass('secondary')} onClick={onMore}>
        Show {Math.min(page, total - shown)} more
      </button>
    </div>
  );
}
