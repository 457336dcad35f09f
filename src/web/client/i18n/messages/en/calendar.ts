/** English, namespace `calendar`: the calendar feed box of the homework centre. */
export default {
  heading: 'Add deadlines to your calendar',
  explain: 'Subscribe to this private address in Google Calendar, Outlook or Apple Calendar: your homework and experiment deadlines appear there and follow every change.',
  urlLabel: 'Your calendar address',
  copy: 'Copy address',
  rotate: 'Get a new address',
  rotating: 'Replacing…',
  rotateConfirm: 'The current address stops working at once, in every calendar that uses it. Get a new one?',
  rotated: 'New address ready. Subscribe to it again in your calendar app.',
  warning: 'Anyone with this address can see your deadlines. If it leaks, get a new one.',
  failed: 'The calendar address could not be loaded.',
}
