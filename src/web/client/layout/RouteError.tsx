import { isRouteErrorResponse, Link, useRouteError } from 'react-router'

/** Shown when a page fails to load or render; offers a way forward instead of a blank screen. */
export function RouteError() {
  const error = useRouteError()
  const message = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : 'Unknown error'
  return (
    <main id="main" className="container narrow">
      <h1>Something went wrong</h1>
      <p>The page could not be shown. If this keeps happening, reload the page.</p>
      <p className="hint">{message}</p>
      <p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          Reload
        </button>{' '}
        <Link to="/courses">Go to my courses</Link>
      </p>
    </main>
  )
}
