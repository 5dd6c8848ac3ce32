import type { MessageKey } from './en';

/**
 * Simplified Chinese. Typed as a full record of the English keys, so a missing key (or a stray
 * extra one) fails `tsc`/`svelte-check` instead of showing an English fallback at run time.
 * Technical names (Docker, Swarm, ENGINE.*, image references) stay untranslated on purpose: they
 * match what users see in logs and in the AgentJet docs.
 */
export const zhCN: Record<MessageKey, string> = {
  'app.title': 'AgentSwarm Desktop',

  'nav.label': '主导航',
  'nav.wizard': '向导',
  'nav.servers': '服务器',
  'nav.jobs': '任务',
  'nav.settings': '设置',

  'status.swarm': 'Swarm：{status} · {host}',
  'status.swarmMore': '（另有 {count} 个）',
  'status.notRunning': 'Swarm：未运行',
  'status.unreachable': 'Swarm：无法连接 · {host}',
  'status.starting': 'Swarm：正在启动 · {host}',
  'status.backendDown': 'Swarm：未知（应用后端没有响应）',

  'wizard.title': 'Rollout 引导向导',
  'wizard.body':
    '此页面将一步步引导你完成第一次 Swarm rollout：选择模型和数据集、启动 Swarm 服务器、接入你的智能体代码，并观察最初的训练步骤。',
  'wizard.notYet': '向导尚未实现。目前请在“服务器”页面启动 Swarm 服务器。',
  'wizard.goServers': '前往服务器页面',

  'jobs.title': 'Rollout 任务',
  'jobs.body': '此页面将列出你的 rollout 任务：每个任务连接的 Swarm 服务器、进度和全局步数（global step），以及日志。',
  'jobs.notYet': '目前尚未跟踪任务。每个服务器的实时引擎状态请查看“服务器”页面。',

  'servers.title': 'Swarm 服务器',
  'servers.intro': '在 Docker 容器中启动 AgentJet Swarm Server，并查看其引擎状态。你的训练代码通过 HTTP 连接到它。',

  'engine.title': '本地 Docker',
  'engine.checking': '正在检查 Docker…',
  'engine.reachable': '可连接',
  'engine.version': 'Docker {version}（API {apiVersion}）',
  'engine.unreachable': '无法连接',
  'engine.recheck': '重新检查',
  'engine.none': '未配置本地 Docker 引擎。',

  'start.title': '启动 Swarm 服务器',
  'start.image': '镜像',
  'start.port': '端口',
  'start.network': '网络',
  'start.network.publish': '仅发布到 127.0.0.1',
  'start.network.host': '主机网络（host）',
  'start.networkHint.publish': '只有本机可以访问该端口。推荐：Swarm API 没有密码保护。',
  'start.networkHint.host':
    '风险：host 模式下，没有任何身份验证的 Swarm API 会监听 Docker 引擎所在主机的所有网络接口，同一网络中的任何人都能启动或停止训练。除非该引擎没有 bridge 网络，否则请选择“仅发布到 127.0.0.1”。',
  'start.gpus': '使用全部 GPU',
  'start.shm': '共享内存（GiB）',
  'start.submit': '启动',
  'start.submitting': '正在启动…',
  'start.started': '已启动 {name}。',

  'validation.imageRequired': '请输入镜像，例如 ghcr.io/modelscope/agentjet:main。',
  'validation.imageFormat': '镜像格式应为 registry/name:tag，例如 ghcr.io/modelscope/agentjet:main。',
  'validation.port': '端口必须是 1024 到 65535 之间的整数。',
  'validation.shm': '共享内存必须是 1 到 1024 之间的整数（GiB）。',

  'containers.title': '容器',
  'containers.empty': '还没有 Swarm 服务器容器。请在上方启动一个。',
  'containers.loading': '正在加载容器…',
  'containers.refresh': '刷新',
  'containers.name': '名称',
  'containers.image': '镜像',
  'containers.port': '端口',
  'containers.state': '容器',
  'containers.engine': '引擎状态',
  'containers.actions': '操作',
  'containers.stop': '停止',
  'containers.stopping': '正在停止…',
  'containers.remove': '删除',
  'containers.removing': '正在删除…',
  'containers.confirmRemove': '确定删除这个正在运行的容器吗？',
  'containers.confirmRemoveButton': '确定删除',
  'containers.cancel': '取消',
  'containers.step': '第 {step} 步',
  'containers.engineUnknown': '暂未知',
  'containers.lastError': '最近错误：',

  'containerState.created': '已创建',
  'containerState.running': '运行中',
  'containerState.paused': '已暂停',
  'containerState.restarting': '重启中',
  'containerState.removing': '删除中',
  'containerState.exited': '已退出',
  'containerState.dead': '已失效',
  'containerState.unknown': '未知',

  'connection.starting': '启动中',
  'connection.online': '在线',
  'connection.unreachable': '无法连接',
  'connection.stopped': '已停止',
  'connection.none': '未监控',

  'engineStatus.ENGINE.OFFLINE': '服务器已运行，但训练引擎尚未启动。',
  'engineStatus.ENGINE.BOOTING': '训练引擎正在启动（加载模型）。',
  'engineStatus.ENGINE.ROLLING': '正在从你的智能体收集 rollout。',
  'engineStatus.ENGINE.ROLLING_POST': '正在结束本轮 rollout。',
  'engineStatus.ENGINE.WEIGHT_SYNCING': '正在训练并同步新权重。',
  'engineStatus.ENGINE.WEIGHT_EXPORTING': '正在导出模型权重。',

  'settings.title': '设置',
  'settings.language': '语言',
  'settings.language.en': 'English',
  'settings.language.zh-CN': '简体中文',
  'settings.swarmDefaults': 'Swarm 服务器默认值',
  'settings.swarmDefaultsHint': '用于预填“服务器”页面的启动表单。',
  'settings.save': '保存',
  'settings.saving': '正在保存…',
  'settings.saved': '已保存。',
  'settings.loading': '正在加载设置…',

  'error.dismiss': '关闭',

  'errors.VALIDATION_FAILED': '部分输入未被接受。请检查各字段后重试。',
  'errors.FORBIDDEN': '访问被拒绝。请使用 `npm run web` 打印的完整链接打开应用（其中包含访问令牌）。',
  'errors.UNKNOWN_CHANNEL': '应用后端不认识此请求。应用与后端的版本是否一致？',
  'errors.ENGINE_UNREACHABLE': '无法连接 Docker。Docker 是否已安装并正在运行？',
  'errors.ENGINE_PERMISSION_DENIED': '没有使用 Docker 的权限。请把当前用户加入 “docker” 用户组，然后注销并重新登录。',
  'errors.ENGINE_NOT_FOUND': '未配置此容器引擎。',
  'errors.IMAGE_NOT_FOUND': '此引擎上没有该镜像。',
  'errors.PORT_IN_USE': '端口已被占用。',
  'errors.CONTAINER_NOT_FOUND': '该容器已不存在。列表已刷新。',
  'errors.CONTAINER_CONFLICT': '已存在同名或使用同一端口的容器。请先停止或删除它。',
  'errors.CONTAINER_START_FAILED': '容器未能启动。下方详情来自 Docker。',
  'errors.SWARM_UNREACHABLE': 'Swarm 服务器没有响应。它可能仍在启动，或已经停止。',
  'errors.SETTINGS_INVALID': '无法保存设置。请检查各项的值后重试。',
  'errors.INTERNAL': '应用内部出错。',
  'errors.BACKEND_UNREACHABLE': '无法连接应用后端。',
  'errors.unknown': '错误 {code}。',
};
