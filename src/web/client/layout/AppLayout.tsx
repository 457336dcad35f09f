import { useMutation, useQueryClient } from '@tanstack/react-query'
import { NavLink, Outlet, useNavigate } from 'react-router'
import { api, isStatus } from '../api.ts'
import { useLiveNotifications } from '../live.ts'
import { useMe, useMyHomeworks, useUnreadCount } from '../queries.ts'
import { ErrorNotice, Loading } from '../ui/Notice.tsx'

/** The frame of every logged-in page: navigation with the reminder dot and the inbox count. */
export function AppLayout() {
  const me = useMe()
  if (me.isPending) return <Loading label="Checking your login…" />
  if (me.error) {
    // A 401 is already on its way to /login (see main.tsx).
    if (isStatus(me.error, 401)) return <Loading label="Redirecting to the login page…" />
    return (
      <main id="main" className="container narrow">
        <h1>Course Learning</h1>
        <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />
      </main>
    )
  }
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="container topbar-inner">
          <NavLink to="/courses" className="brand">
            Course Learning
          </NavLink>
          <MainNav />
          <UserMenu name={me.data.displayName || me.data.username} role={me.data.role} />
        </div>
      </header>
      <main id="main" className="container" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  )
}

function MainNav() {
  // The live stream keeps the dot and the count fresh; polling only while it is down.
  const live = useLiveNotifications()
  const homeworks = useMyHomeworks({}, { refetchInterval: live ? false : 60_000 })
  const unread = useUnreadCount({ refetchInterval: live ? false : 60_000 })
  const reminders = homeworks.data?.unreadReminderCount ?? 0
  const messages = unread.data ?? 0
  return (
    <nav aria-label="Main" className="mainnav">
      <NavLink to="/courses">Courses</NavLink>
      <NavLink to="/homeworks" data-testid="nav-homeworks">
        Homework
        {reminders > 0 && (
          <span className="dot" data-testid="reminder-dot">
            <span className="sr-only">
              ({reminders} unread {reminders === 1 ? 'reminder' : 'reminders'})
            </span>
          </span>
        )}
      </NavLink>
      <NavLink to="/messages" data-testid="nav-messages">
        Messages
        {messages > 0 && (
          <span className="count" data-testid="unread-count">
            {messages}
            <span className="sr-only"> unread</span>
          </span>
        )}
      </NavLink>
      <NavLink to="/settings" data-testid="nav-settings">
        Settings
      </NavLink>
    </nav>
  )
}

function UserMenu({ name, role }: { name: string; role: string }) {
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
        {name} <span className="role">{role === 'TEACHER' ? 'Teacher' : 'Student'}</span>
      </span>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => logout.mutate()} disabled={logout.isPending}>
        Log out
      </button>
    </div>
  )
}
