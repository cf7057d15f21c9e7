// Next.js configuration of the console. `dagu server` hosts the built app (.next/) through its own http server
// (server/api/webServer.ts), which answers /api/v1 itself: Next only renders the pages, and they import no
// server module (their server-side data comes from the web server, see app/pageData.ts).

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
