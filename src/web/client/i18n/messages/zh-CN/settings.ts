import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/settings.ts'

/** 简体中文，命名空间 `settings`：设置页。 */
const zh: Catalogue<typeof en> = {
  title: '设置',
  emailHeading: '邮件通知',
  emailHint: '所有通知都会出现在“消息”中。选择哪些通知同时发送到你的邮箱。',
  types: {
    HOMEWORK_REMINDER: { label: '作业提醒', hint: '新作业发布时、截止前 24 小时和截止时。' },
    SUBMISSION_GRADED: { label: '成绩', hint: '老师批改了你提交的作业时。' },
    ANNOUNCEMENT: { label: '公告', hint: '你所在课程发布的每一条公告。' },
    SUBMISSION_RECEIVED: { label: '新的提交', hint: '学生在你任教的课程中提交作业时（每次提交一条消息）。' },
    PRIVATE_COMMENT: { label: '私密评论', hint: '关于你的作业（学生）或学生作业（教师）的私密评论。' },
    COMMENT_REPLY: { label: '班级评论', hint: '你发布或评论过的内容下有新评论时。' },
  },
  saved: '已保存。',
  languageHeading: '语言',
  languageHint: '页面、消息、邮件和日历订阅使用的语言，保存在你的账号中。',
}
export default zh
