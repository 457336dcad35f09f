import { useEffect } from 'react'
import { useBlocker } from 'react-router'
import { translate } from '../i18n/index.ts'

/**
 * Warns before unsaved work is lost: the browser's own prompt on reload/close (beforeunload)
 * and a confirmation on in-app navigation. Going to /login (the session ended) is let through:
 * drafts (ui/useDraft.ts) keep the work for after the login. `allow` lets chosen in-app moves
 * through (grading: the next student, whose unsaved grade stays a draft).
 */
export function useUnsavedChanges(dirty: boolean, allow?: (current: { pathname: string; search: string }, next: { pathname: string; search: string }) => boolean) {
  useEffect(() => {
    if (!dirty) return
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault()
      e.returnValue = ''
    }
    window.addEventListener('beforeunload', onBeforeUnload)
    return () => window.removeEventListener('beforeunload', onBeforeUnload)
  }, [dirty])
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty &&
      !nextLocation.pathname.startsWith('/login') &&
      (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search) &&
      !allow?.(currentLocation, nextLocation),
  )
  useEffect(() => {
    if (blocker.state !== 'blocked') return
    if (window.confirm(translate('manage:common.unsaved'))) blocker.proceed()
    else blocker.reset()
  }, [blocker])
}
