/** English, namespace `sso`: single sign-on on the login page. */
export default {
  signInWith: 'Sign in with {{name}}',
  or: 'or with your username and password',
  failed: 'Single sign-on did not work. Please try again; if it keeps failing, ask your school’s IT help desk.',
  only: 'This site signs you in with {{name}}.',
  unverifiedLocal:
    'An account here already uses your e-mail address, but that address was never confirmed, so we did not sign you in to it: someone else may have registered it.',
  unverifiedLocalWhatToDo:
    'If the account is yours, prove the address with “Forgot password” (the link goes to your mailbox and signs out everyone else), then sign in with single sign-on again. If this server sends no e-mail, ask your school for a reset link.',
  unverifiedLocalReset: 'Forgot password',
}
