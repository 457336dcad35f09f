import { isRouteErrorResponse, Link, useRouteError } from 'react-router'
import { useT } from '../i18n/index.ts'
import NotFoundPage from '../pages/NotFound.tsx'
import './shell.ts'

/**
 * A page's code (or the editor's) could not be fetched: offline, or a new version of the app
 * replaced the files. Chromium, Firefox and Safari word it differently; none of it is for people.
 */
export const isChunkLoadError = (e: unknown) =>
  e instanceof Error && /dynamically imported module|importing a module script failed|module script|ChunkLoadError|loading chunk/i.test(`${e.name} ${e.message}`)

/** Shown when a page fails to load or render; offers a way forward instead of a blank screen. */
export function RouteError() {
  return <RouteErrorView inLayout={false} />
}

/**
 * The same inside the app's layout (issue 56.5g): a page whose code cannot be fetched (the
 * server is down) keeps the header and its navigation, with the notice and a reload in place.
 */
export function PageError() {
  return <RouteErrorView inLayout />
}

function RouteErrorView({ inLayout }: { inLayout: boolean }) {
  const { t } = useT('shell')
  const error = useRouteError()
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />
  // Issue 29.10: an offline chunk load showed the browser's raw text; say what to do instead.
  const unloaded = isChunkLoadError(error)
  const message = unloaded ? null : isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : t('routeError.unknown')
  const Wrapper = inLayout ? 'div' : 'main'
  return (
    <Wrapper {...(inLayout ? {} : { id: 'main' })} className={inLayout ? 'narrow page-error' : 'container narrow'} data-testid={unloaded ? 'chunk-error' : 'route-error'}>
      <h1>{unloaded ? t('routeError.unloadedTitle') : t('routeError.title')}</h1>
      <p>{unloaded ? t('routeError.unloadedBody') : t('routeError.body')}</p>
      {message && <p className="hint">{message}</p>}
      <p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          {t('routeError.reload')}
        </button>{' '}
        <Link to="/courses">{t('goToCourses')}</Link>
      </p>
    </Wrapper>
  )
}
