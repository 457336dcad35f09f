import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/messages.ts'

/** 简体中文，命名空间 `messages`：消息（通知）。 */
const zh: Catalogue<typeof en> = {
  title: '消息',
  markAllRead: '全部标为已读',
  unreadOnly: '只看未读',
  unreadCount_one: '{{count}} 条未读',
  unreadCount_other: '{{count}} 条未读',
  loading: '正在加载消息…',
  emptyUnread: '没有未读消息。',
  empty: '还没有消息。',
  unreadMark: '（未读）',
  readAt: '· 已读于',
  markRead: '标为已读',
  markReadOf: '标为已读：{{title}}',
  type: {
    HOMEWORK_REMINDER: '作业提醒',
    SUBMISSION_GRADED: '已批改',
    ANNOUNCEMENT: '公告',
    SUBMISSION_RECEIVED: '新的提交',
    COMMENT_REPLY: '评论',
    PRIVATE_COMMENT: '私密评论',
  },
}
export default zh
