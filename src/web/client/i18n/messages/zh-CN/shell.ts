import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/shell.ts'

/** 简体中文，命名空间 `shell`：登录后页面的框架、错误页和学生端共用的小组件。 */
const zh: Catalogue<typeof en> = {
  skipToContent: '跳到正文',
  checkingLogin: '正在确认登录状态…',
  redirecting: '正在跳转到登录页…',
  loading: '加载中…',
  nav: {
    settings: '设置',
    label: '主导航',
    courses: '课程',
    homework: '作业',
    messages: '消息',
    unreadReminders_one: '（{{count}} 条未读提醒）',
    unreadReminders_other: '（{{count}} 条未读提醒）',
    unread: '条未读',
  },
  user: {
    teacher: '教师',
    student: '学生',
    logOut: '退出登录',
  },
  routeError: {
    title: '出错了',
    body: '页面没能显示出来。如果一直这样，请刷新页面。',
    reload: '刷新',
    unknown: '未知错误',
    unloadedTitle: '页面没能加载',
    unloadedBody: '可能是网络断开了，或者课程学习平台刚刚更新。请确认已联网，然后刷新页面。',
  },
  notFound: {
    title: '找不到页面',
    body: '这个地址没有对应的页面，可能已经移动，或者链接输错了。',
  },
  goToCourses: '回到我的课程',
  failure: {
    missing: {
      thing: '这个页面不存在。',
      course: '这门课程不存在。',
      experiment: '这个实验不存在。',
      task: '这个任务不存在。',
      detail: '链接可能输错了或已经过期，也可能内容已被删除。',
    },
    forbidden: {
      thing: '你没有权限查看。',
      course: '你还不是这门课程的成员。',
      experiment: '这个实验属于你未加入的课程。',
      task: '这个任务属于你未加入的课程。',
      detail: '请向老师要邀请码，或者换用你上这门课的账号登录。',
    },
  },
  module: {
    OVERVIEW: '概览',
    LEARNING: '学习内容',
    HOMEWORK: '作业',
    QUIZ: '测验',
    GRADES: '成绩与反馈',
    EXPERIMENTS: '实验',
    RESOURCES: '资料',
    ANNOUNCEMENTS: '公告',
  },
  files: {
    choose: '选择文件或拍照',
    addMore: '继续添加文件',
    chosen_one: '已选择 {{count}} 个文件（{{size}}）',
    chosen_other: '已选择 {{count}} 个文件（{{size}}）',
    hint: '最多 {{max}} 个文件：作业照片、PDF、文档均可。所有文件合计不能超过上传上限。',
    tooLarge: '这些文件合计超过了上传上限 {{limit}}。请移除一些文件，或换用更小的照片。',
    listLabel: '已选择的文件',
    remove: '移除 {{name}}',
    removeShort: '移除',
    empty: '以下文件是空的，已略过：{{names}}。',
    tooMany: '最多 {{max}} 个文件，多出的已略过。',
    handedIn_one: '提交的文件',
    handedIn_other: '提交的文件（{{count}} 个）',
  },
  file: {
    choose: '选择文件',
    none: '未选择文件',
    preview: '预览',
    hidePreview: '收起预览',
    openInTab: '在新标签页打开',
    download: '下载文件',
  },
}
export default zh
