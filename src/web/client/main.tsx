import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { RouterProvider } from 'react-router/dom'
import { setUnauthorizedHandler } from './api.ts'
import { queryRetry, queryRetryDelay } from './query-retry.ts'
import { createAppRouter } from './router.tsx'
import './styles.css'

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: queryRetry, retryDelay: queryRetryDelay, staleTime: 15_000, refetchOnWindowFocus: true },
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
