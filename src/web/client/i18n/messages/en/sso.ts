/** English, namespace `sso`: single sign-on on the login page. */
export default {
  signInWith: 'Sign in with {{name}}',
  or: 'or with your username and password',
  failed: 'Single sign-on did not work. Please try again; if it keeps failing, ask your school’s IT help desk.',
  only: 'This site signs you in with {{name}}.',
}
