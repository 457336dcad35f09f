import type { ComponentType } from 'react'
import { createBrowserRouter, Navigate } from 'react-router'
import { AppLayout } from './layout/AppLayout.tsx'
import { PageError, RouteError } from './layout/RouteError.tsx'
import LoginPage from './pages/Login.tsx'
import NotFoundPage from './pages/NotFound.tsx'
import { PageSkeleton } from './ui/Skeleton.tsx'

/** Pages other than login load on demand, so the login page's JavaScript stays small. */
const page = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default })

/** What shows while a lazy page's code loads on a direct visit (React Router warns without one). */
const HydrateFallback = PageSkeleton

export function createAppRouter() {
  return createBrowserRouter([
    { path: '/', element: <Navigate to="/courses" replace />, ErrorBoundary: RouteError, HydrateFallback },
    { path: '/login', Component: LoginPage, ErrorBoundary: RouteError, HydrateFallback },
    { path: '/register', lazy: page(() => import('./pages/Register.tsx')), ErrorBoundary: RouteError, HydrateFallback },
    { path: '/verify-email', lazy: page(() => import('./pages/VerifyEmail.tsx')), ErrorBoundary: RouteError, HydrateFallback },
    { path: '/forgot-password', lazy: page(() => import('./pages/ForgotPassword.tsx')), ErrorBoundary: RouteError, HydrateFallback },
    { path: '/reset-password', lazy: page(() => import('./pages/ResetPassword.tsx')), ErrorBoundary: RouteError, HydrateFallback },
    { path: '/unsubscribe', lazy: page(() => import('./pages/Unsubscribe.tsx')), ErrorBoundary: RouteError, HydrateFallback },
    {
      Component: AppLayout,
      ErrorBoundary: RouteError,
      HydrateFallback,
      children: [
        {
          // A page that fails to load or render shows its error inside the layout: the header stays.
          ErrorBoundary: PageError,
          children: [
            { path: '/courses', lazy: page(() => import('./pages/Courses.tsx')), HydrateFallback },
            { path: '/courses/:courseId', lazy: page(() => import('./pages/CourseWorkspace.tsx')), HydrateFallback },
            { path: '/courses/:courseId/manage', lazy: page(() => import('./pages/Manage.tsx')), HydrateFallback },
            { path: '/experiments/:experimentId', lazy: page(() => import('./pages/Experiment.tsx')), HydrateFallback },
            { path: '/homeworks', lazy: page(() => import('./pages/Homeworks.tsx')), HydrateFallback },
            { path: '/messages', lazy: page(() => import('./pages/Messages.tsx')), HydrateFallback },
            { path: '/settings', lazy: page(() => import('./pages/Settings.tsx')), HydrateFallback },
          ],
        },
      ],
    },
    { path: '*', Component: NotFoundPage, ErrorBoundary: RouteError, HydrateFallback },
  ])
}
