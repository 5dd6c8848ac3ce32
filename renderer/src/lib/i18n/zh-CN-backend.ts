import type { enBackend } from './en-backend';

/** Simplified Chinese of `en-backend.ts`: the same keys (checked by type). */
export const zhCNBackend: Record<keyof typeof enBackend, string> = {
  'backend.lost': '与应用后端的连接已断开：本页显示的内容可能已过时。',
  'backend.retrying': '正在重新连接（第 {attempts} 次尝试）…',
  'backend.retryIn': '{seconds} 秒后再试（第 {attempts} 次尝试）。',
  'backend.retryNow': '立即重试',
  'backend.tokenRefused': '应用后端已重启，不再接受本页的令牌。',
  'backend.tokenRefusedHelp': '请把它打印的新地址（以 #token=… 结尾）粘贴到本标签页的地址栏：页面无需刷新即可重新连接。',
  'backend.recovered': '已重新连接到应用后端；页面再次显示最新数据。',
};
