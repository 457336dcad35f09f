import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router'
import { api, isStatus } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { useLiveNotifications } from '../live.ts'
import { useMe, useMyHomeworks, useUnreadCount } from '../queries.ts'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { EmailBanner } from '../pages/account/EmailBanner.tsx'
import { PageSkeleton } from '../ui/Skeleton.tsx'
import './shell.ts'

/** The frame of every logged-in page: navigation with the reminder dot and the inbox count. */
export function AppLayout() {
  const { t } = useT('shell')
  const common = useT()
  const me = useMe()
  if (me.isPending) return <PageSkeleton />
  // A failed refetch (the server is down for a moment) keeps the known user and the header
  // (issue 56.5g); only a first load that failed, or a 401, replaces the frame.
  if (me.error && (!me.data || isStatus(me.error, 401))) {
    // A 401 is already on its way to /login (see main.tsx).
    if (isStatus(me.error, 401))
      return (
        <p className="loading" role="status">
          {t('redirecting')}
        </p>
      )
    return (
      <main id="main" className="container narrow">
        <h1>{common.t('brand')}</h1>
        <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />
      </main>
    )
  }
  return (
    <>
      <a className="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      <header className="topbar">
        <div className="container topbar-inner">
          <NavLink to="/courses" className="brand">
            {common.t('brand')}
          </NavLink>
          <MainNav />
          <LanguageSwitcher user={me.data} />
          <UserMenu name={me.data.displayName || me.data.username} role={me.data.role} />
        </div>
      </header>
      <main id="main" className="container" tabIndex={-1}>
        <EmailBanner user={me.data} />
        <Outlet />
      </main>
    </>
  )
}

function MainNav() {
  const { t } = useT('shell')
  // The live stream keeps the dot and the count fresh; polling only while it is down.
  const live = useLiveNotifications()
  const homeworks = useMyHomeworks({}, { refetchInterval: live ? false : 60_000 })
  const unread = useUnreadCount({ refetchInterval: live ? false : 60_000 })
  const reminders = homeworks.data?.unreadReminderCount ?? 0
  const messages = unread.data ?? 0
  const ref = useRef<HTMLElement>(null)
  const { pathname } = useLocation()
  // At phone width the navigation scrolls sideways: keep the active tab in view.
  useEffect(() => {
    const active = ref.current?.querySelector<HTMLElement>('a.active')
    if (active && ref.current && ref.current.scrollWidth > ref.current.clientWidth) active.scrollIntoView({ block: 'nearest', inline: 'nearest' })
  }, [pathname])
  return (
    <nav aria-label={t('nav.label')} className="mainnav" ref={ref}>
      <NavLink to="/courses">{t('nav.courses')}</NavLink>
      <NavLink to="/homeworks" data-testid="nav-homeworks">
        {t('nav.homework')}
        {reminders > 0 && (
          <span className="dot" data-testid="reminder-dot">
            <span className="sr-only">{t('nav.unreadReminders', { count: reminders })}</span>
          </span>
        )}
      </NavLink>
      <NavLink to="/messages" data-testid="nav-messages">
        {t('nav.messages')}
        {messages > 0 && (
          <span className="count" data-testid="unread-count">
            {messages}
            <span className="sr-only"> {t('nav.unread')}</span>
          </span>
        )}
      </NavLink>
      <NavLink to="/settings" data-testid="nav-settings">
        {t('nav.settings')}
      </NavLink>
    </nav>
  )
}

function UserMenu({ name, role }: { name: string; role: string }) {
  const { t } = useT('shell')
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const logout = useMutation({
    mutationFn: () => api<null>('POST', '/auth/logout', undefined, { anonymous: true }),
    // Whatever the server says (even 401: already logged out), the person ends up logged out here.
    onSettled: async () => {
      // Leave the protected pages first, so nothing refetches (and bounces with ?next=) meanwhile.
      await navigate('/login', { replace: true, state: { loggedOut: true } })
      await queryClient.cancelQueries()
      queryClient.clear()
    },
  })
  return (
    <div className="usermenu">
      <span className="who">
        <span className="who-name">{name}</span> <span className="role">{role === 'TEACHER' ? t('user.teacher') : t('user.student')}</span>
      </span>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => logout.mutate()} disabled={logout.isPending}>
        {t('user.logOut')}
      </button>
    </div>
  )
}
