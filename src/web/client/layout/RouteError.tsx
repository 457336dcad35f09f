import { isRouteErrorResponse, Link, useRouteError } from 'react-router'
import { useT } from '../i18n/index.ts'
import NotFoundPage from '../pages/NotFound.tsx'
import './shell.ts'

/** Shown when a page fails to load or render; offers a way forward instead of a blank screen. */
export function RouteError() {
  const { t } = useT('shell')
  const error = useRouteError()
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />
  const message = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : t('routeError.unknown')
  return (
    <main id="main" className="container narrow">
      <h1>{t('routeError.title')}</h1>
      <p>{t('routeError.body')}</p>
      <p className="hint">{message}</p>
      <p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          {t('routeError.reload')}
        </button>{' '}
        <Link to="/courses">{t('goToCourses')}</Link>
      </p>
    </main>
  )
}
