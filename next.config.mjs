// Next.js configuration of the console. `dagu server` hosts the built app (.next/) through its own http server.

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Keep one real node_modules copy of these (prom-client's registry must be shared with the CLI's code).
  serverExternalPackages: ['prom-client', 'pino'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
