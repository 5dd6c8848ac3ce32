import type { AlertRule, FleetAlert } from '../../shared/schemas-fleet';
import type { Notifier } from '../notifier';
import type { Logger } from '../util/logger';
import { RULE_TITLES, type Verdict } from './alert-rules';

/** Resolved alerts kept for the list; older ones drop off. */
const KEEP_RESOLVED = 200;

export interface AlertBookOptions {
  notifier: Notifier;
  logger: Logger;
  /** The list changed (an alert opened, was acknowledged or resolved). */
  changed: (alerts: FleetAlert[]) => void;
  now?: () => number;
}

/**
 * The episodes of the fleet's conditions: one alert per condition per server from when it begins until it
 * ends, told once (a desktop notification and an app-log line) when it opens, and logged when it resolves.
 * A condition that holds again later is a new episode, told again.
 */
export class AlertBook {
  private readonly alerts: FleetAlert[] = [];
  private seq = 0;

  constructor(private readonly options: AlertBookOptions) {}

  list(): FleetAlert[] {
    return this.alerts.map((a) => ({ ...a }));
  }

  /** The open (or acknowledged) episode of `rule` on a server, if any. */
  current(rule: AlertRule, engineId: string, containerId: string): FleetAlert | undefined {
    return this.alerts.find((a) => a.rule === rule && a.engineId === engineId && a.containerId === containerId && a.state !== 'resolved');
  }

  /** Feeds one verdict: opens an episode (and tells it) or resolves the open one. */
  update(rule: AlertRule, server: { engineId: string; containerId: string; name: string }, verdict: Verdict): void {
    const open = this.current(rule, server.engineId, server.containerId);
    const now = new Date(this.options.now?.() ?? Date.now()).toISOString();
    if (verdict.active && !open) {
      const alert: FleetAlert = { id: `a${++this.seq}-${Date.now().toString(36)}`, rule, engineId: server.engineId, containerId: server.containerId, name: server.name, state: 'open', openedAt: now, resolvedAt: null, detail: verdict.detail };
      this.alerts.push(alert);
      this.tell(alert);
      this.changed();
    } else if (!verdict.active && open) {
      open.state = 'resolved';
      open.resolvedAt = now;
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
      this.changed();
    }
    return alert ? { ...alert } : undefined;
  }

  private tell(alert: FleetAlert): void {
    const title = `${RULE_TITLES[alert.rule]}: ${alert.name}`;
    const body = `${alert.name}: ${alert.detail}`;
    this.options.logger.warn(`fleet alert: ${body}`, { rule: alert.rule, engineId: alert.engineId, containerId: alert.containerId });
    try {
      this.options.notifier.notify({ kind: 'fleet-alert', title, body, engineId: alert.engineId, containerId: alert.containerId });
    } catch (error) {
      this.options.logger.warn('could not show a notification', { kind: 'fleet-alert', message: error instanceof Error ? error.message : String(error) });
    }
  }

  private trim(): void {
    const resolved = this.alerts.filter((a) => a.state === 'resolved');
    for (const old of resolved.slice(0, Math.max(0, resolved.length - KEEP_RESOLVED))) this.alerts.splice(this.alerts.indexOf(old), 1);
  }

  private changed(): void {
    this.options.changed(this.list());
  }
}
