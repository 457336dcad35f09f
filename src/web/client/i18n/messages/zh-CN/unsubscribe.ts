import type en from '../en/unsubscribe.ts'
import type { Catalogue } from '../../catalogue.ts'

/** 简体中文，命名空间 `unsubscribe`。 */
const zh: Catalogue<typeof en> = {
  title: '不再接收此类邮件',
  ask: '不再通过邮件向你发送{{type}}？你仍可在课程学习平台中看到它们，也可以在“设置”中重新开启邮件。',
  askAny: '不再通过邮件向你发送此类通知？你仍可在课程学习平台中看到它们，也可以在“设置”中重新开启邮件。',
  confirm: '确认关闭',
  working: '正在关闭…',
  done: '已完成：你将不再通过邮件收到{{type}}。',
  missing: '请通过邮件中的链接打开此页面。',
  toSettings: '打开设置',
  types: {
    HOMEWORK_REMINDER: '作业提醒',
    SUBMISSION_GRADED: '评分通知',
    ANNOUNCEMENT: '课程公告',
    SUBMISSION_RECEIVED: '新提交通知',
    PRIVATE_COMMENT: '私密评论',
    COMMENT_REPLY: '班级评论通知',
  },
}
export default zh
