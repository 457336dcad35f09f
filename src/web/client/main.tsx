import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { RouterProvider } from 'react-router/dom'
import { ApiError, setUnauthorizedHandler } from './api.ts'
import { createAppRouter } from './router.tsx'
import './styles.css'

const retry = (count: number, error: unknown) => error instanceof ApiError && (error.status === 0 || error.status >= 500) && count < 2

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry, staleTime: 15_000, refetchOnWindowFocus: true },
    mutations: { retry: false },
  },
})

const router = createAppRouter()

// Any 401 outside the login form: back to /login, remembering where the person was.
setUnauthorizedHandler(() => {
  const { pathname, search } = window.location
  if (pathname === '/login' || pathname === '/register') return
  queryClient.cancelQueries()
  void router.navigate(`/login?next=${encodeURIComponent(pathname + search)}`, { replace: true })
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
)
