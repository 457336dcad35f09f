/** English, namespace `messages`: the inbox (notifications). */
export default {
  title: 'Messages',
  markAllRead: 'Mark all as read',
  unreadOnly: 'Show unread only',
  unreadCount_one: '{{count}} unread',
  unreadCount_other: '{{count}} unread',
  loading: 'Loading messages…',
  emptyUnread: 'No unread messages.',
  empty: 'No messages yet.',
  unreadMark: ' (unread)',
  readAt: '· read',
  markRead: 'Mark as read',
  markReadOf: 'Mark as read: {{title}}',
  type: {
    HOMEWORK_REMINDER: 'Homework reminder',
    SUBMISSION_GRADED: 'Graded',
    ANNOUNCEMENT: 'Announcement',
    SUBMISSION_RECEIVED: 'New submission',
    COMMENT_REPLY: 'Comment',
    PRIVATE_COMMENT: 'Private comment',
  },
}
