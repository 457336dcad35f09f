/** English, namespace `common`: the login and registration pages, the layout and shared widgets. */
export default {
  brand: 'Course Learning',
  pageTitle: '{{title}} · Course Learning',
  login: {
    title: 'Log in',
    identifier: 'Username or email',
    password: 'Password',
    identifierRequired: 'Enter your username or email.',
    passwordRequired: 'Enter your password.',
    submit: 'Log in',
    submitting: 'Logging in…',
    continueHint: 'Please log in to continue. You will return to the page you were on.',
    loggedOut: 'You have logged out.',
    registered: 'Your account is ready. Log in to start.',
    newHere: 'New here?',
    createAccount: 'Create an account',
  },
  time: {
    dueNow: 'due now',
    pastDue: 'past due',
    daysHoursLeft: '{{d}}d {{h}}h left',
    hoursMinutesLeft: '{{h}}h {{m}}m left',
    minutesLeft: '{{m}}m left',
    underAMinute: 'less than a minute left',
  },
  language: {
    label: 'Language',
    en: 'English',
    'zh-CN': '简体中文',
  },
}
