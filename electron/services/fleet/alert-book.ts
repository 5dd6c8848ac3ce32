import type { AlertRule, AutoStopPlan, FleetAlert } from '../../shared/schemas-fleet';
import type { AppNotification } from '../../shared/schemas-profiles';
import type { Notifier } from '../notifier';
import type { Logger } from '../util/logger';
import type { AlertBookFile } from './alert-book-file';
import { RULE_TITLES, type Verdict } from './alert-rules';

/** Resolved alerts kept for the list; older ones drop off. */
const KEEP_RESOLVED = 200;

export interface AlertBookOptions {
  notifier: Notifier;
  logger: Logger;
  /** The list changed (an alert opened, was acknowledged or resolved). */
  changed: (alerts: FleetAlert[]) => void;
  /** Where the book is kept across restarts; absent: in memory only (unit tests). */
  file?: AlertBookFile;
  now?: () => number;
}

type Server = { engineId: string; containerId: string; name: string };

/**
 * The episodes of the fleet's conditions: one alert per condition per server from when it begins until it
 * ends, told once (a desktop notification and an app-log line) when it opens, and logged when it resolves.
 * A condition that holds again later is a new episode, told again. Kept on disk, so an episode open when the
 * backend stopped is still open (and not told again) after it starts.
 */
export class AlertBook {
  private alerts: FleetAlert[] = [];
  private seq = 0;

  constructor(private readonly options: AlertBookOptions) {}

  /** Reads the episodes kept on disk (before the first update). */
  async load(): Promise<void> {
    const kept = await this.options.file?.read();
    if (!kept) return;
    this.alerts = kept.alerts;
    this.seq = kept.seq;
    const open = this.alerts.filter((a) => a.state !== 'resolved').length;
    if (open > 0) this.options.logger.info?.(`fleet alerts: ${open} episode(s) still open from before the restart`, { open });
  }

  list(): FleetAlert[] {
    return this.alerts.map((a) => ({ ...a }));
  }

  /** The open (or acknowledged) episode of `rule` on a server, if any. */
  current(rule: AlertRule, engineId: string, containerId: string): FleetAlert | undefined {
    return this.alerts.find((a) => a.rule === rule && a.engineId === engineId && a.containerId === containerId && a.state !== 'resolved');
  }

  /** The servers with an open (or acknowledged) episode. */
  openServers(): { engineId: string; containerId: string }[] {
    const seen = new Map<string, { engineId: string; containerId: string }>();
    for (const a of this.alerts) if (a.state !== 'resolved') seen.set(`${a.engineId}:${a.containerId}`, { engineId: a.engineId, containerId: a.containerId });
    return [...seen.values()];
  }

  /**
   * Feeds one verdict: opens an episode (and tells it) or resolves the open one. A verdict that is not active
   * but `holding` (the condition holds, only not long enough yet, as after a restart, or is unknown for now)
   * leaves an open episode open.
   */
  update(rule: AlertRule, server: Server, verdict: Verdict): void {
    const open = this.current(rule, server.engineId, server.containerId);
    const now = this.nowIso();
    if (verdict.active && !open) {
      const alert: FleetAlert = { id: `a${++this.seq}-${Date.now().toString(36)}`, rule, engineId: server.engineId, containerId: server.containerId, name: server.name, state: 'open', openedAt: now, resolvedAt: null, detail: verdict.detail, say: verdict.say ?? null };
      this.alerts.push(alert);
      this.tell(alert, verdict.notice);
      this.changed();
    } else if (!verdict.active && !verdict.holding && open) {
      open.state = 'resolved';
      open.resolvedAt = now;
      // The GPUs worked again (or the server went) before its auto-stop: nothing is planned any more.
      if (open.autoStop?.state === 'pending' || open.autoStop?.state === 'waiting-step') open.autoStop = null;
      this.options.logger.info?.(`fleet alert resolved: ${RULE_TITLES[rule]} on ${server.name}`, { rule, engineId: server.engineId, containerId: server.containerId });
      this.trim();
      this.changed();
    }
  }

  /** The server is gone: its episodes end. */
  serverGone(engineId: string, containerId: string): void {
    for (const rule of Object.keys(RULE_TITLES) as AlertRule[]) {
      const open = this.current(rule, engineId, containerId);
      if (open) this.update(rule, { engineId, containerId, name: open.name }, { active: false, detail: '' });
    }
  }

  acknowledge(id: string): FleetAlert | undefined {
    const alert = this.alerts.find((a) => a.id === id);
    if (alert?.state === 'open') {
      alert.state = 'acknowledged';
      // Acknowledging an idle alert is how the user keeps the server from auto-stop (the warning says so).
      if (alert.autoStop && (alert.autoStop.state === 'pending' || alert.autoStop.state === 'waiting-step')) alert.autoStop = { ...alert.autoStop, state: 'kept' };
      this.changed();
    }
    return alert ? { ...alert } : undefined;
  }

  /** Records how far an episode's auto-stop got (null: none planned, e.g. auto-stop was turned off). */
  setAutoStop(id: string, plan: AutoStopPlan | null): void {
    const alert = this.alerts.find((a) => a.id === id);
    if (!alert || JSON.stringify(alert.autoStop ?? null) === JSON.stringify(plan)) return;
    alert.autoStop = plan;
    this.changed();
  }

  /** Tells something about an episode that is not its opening (the auto-stop's warning and its outcome). */
  notify(alert: FleetAlert, title: string, body: string): void {
    this.options.logger.warn(body, { rule: alert.rule, engineId: alert.engineId, containerId: alert.containerId });
    this.show({ kind: 'fleet-alert', title, body, engineId: alert.engineId, containerId: alert.containerId });
  }

  /** Resolves once the book on disk is current. */
  flush(): Promise<void> {
    return this.options.file?.flush() ?? Promise.resolve();
  }

  private tell(alert: FleetAlert, notice: Verdict['notice']): void {
    const kind = notice?.kind ?? 'fleet-alert';
    const title = notice?.title ?? `${RULE_TITLES[alert.rule]}: ${alert.name}`;
    const body = notice?.body ?? `${alert.name}: ${alert.detail}`;
    this.options.logger.warn(`fleet alert: ${body}`, { rule: alert.rule, engineId: alert.engineId, containerId: alert.containerId });
    this.show({ kind, title, body, engineId: alert.engineId, containerId: alert.containerId });
  }

  private show(notification: AppNotification): void {
    try {
      this.options.notifier.notify(notification);
    } catch (error) {
      this.options.logger.warn('could not show a notification', { kind: notification.kind, message: error instanceof Error ? error.message : String(error) });
    }
  }

  private trim(): void {
    const resolved = this.alerts.filter((a) => a.state === 'resolved');
    for (const old of resolved.slice(0, Math.max(0, resolved.length - KEEP_RESOLVED))) this.alerts.splice(this.alerts.indexOf(old), 1);
  }

  private nowIso(): string {
    return new Date(this.options.now?.() ?? Date.now()).toISOString();
  }

  private changed(): void {
    void this.options.file?.save({ version: 1, seq: this.seq, alerts: this.alerts });
    this.options.changed(this.list());
  }
}
