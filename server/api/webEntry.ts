// Entry of the web bundle (dist/web.cjs): the console's server and the API router, kept out of the CLI
// bundle so that `dagu start` does not load them.

export { startWebServer } from './webServer';
export { createApiRouter } from './apiRouter';
export { API_NOT_FOUND, API_ROUTES } from '../../app/api/v1/routeTable';
