import type { ComponentType } from 'react'
import { createBrowserRouter, Navigate } from 'react-router'
import { AppLayout } from './layout/AppLayout.tsx'
import { RouteError } from './layout/RouteError.tsx'
import LoginPage from './pages/Login.tsx'
import NotFoundPage from './pages/NotFound.tsx'

/** Pages other than login load on demand, so the login page's JavaScript stays small. */
const page = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default })

export function createAppRouter() {
  return createBrowserRouter([
    { path: '/', element: <Navigate to="/courses" replace />, ErrorBoundary: RouteError },
    { path: '/login', Component: LoginPage, ErrorBoundary: RouteError },
    { path: '/register', lazy: page(() => import('./pages/Register.tsx')), ErrorBoundary: RouteError },
    {
      Component: AppLayout,
      ErrorBoundary: RouteError,
      children: [
        { path: '/courses', lazy: page(() => import('./pages/Courses.tsx')) },
        { path: '/courses/:courseId', lazy: page(() => import('./pages/CourseWorkspace.tsx')) },
        { path: '/courses/:courseId/manage', lazy: page(() => import('./pages/Manage.tsx')) },
        { path: '/experiments/:experimentId', lazy: page(() => import('./pages/Experiment.tsx')) },
        { path: '/homeworks', lazy: page(() => import('./pages/Homeworks.tsx')) },
        { path: '/messages', lazy: page(() => import('./pages/Messages.tsx')) },
        { path: '/settings', lazy: page(() => import('./pages/Settings.tsx')) },
      ],
    },
    { path: '*', Component: NotFoundPage, ErrorBoundary: RouteError },
  ])
}
