import { useSearchParams } from 'react-router'

/** The `?token=` of a link from a mail (reset password, verify email, unsubscribe); '' when absent. */
export function useLinkToken() {
  const [params] = useSearchParams()
  return params.get('token') ?? ''
}
