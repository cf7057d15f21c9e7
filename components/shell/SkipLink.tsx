// The first tab stop of every page: jumps past the navigation to the page's content.

export function SkipLink() {
  return (
    <a
      href="#main"
      className="sr-only rounded-md bg-blue-700 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500"
    >
      Skip to content
    </a>
  );
}
