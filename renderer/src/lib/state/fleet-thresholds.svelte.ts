import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { AlertThresholds } from '../../../../electron/shared/schemas-fleet';
import { checkThresholdDraft, draftOf, type ThresholdDraft, type ThresholdError, type ThresholdKey } from '../../pages/fleet/threshold-fields';

/**
 * The alert thresholds form's state: loaded from `alerts:thresholds`, saved through `alerts:set-thresholds`
 * (the backend keeps them in fleet-alerts.json and checks them with the same schema).
 */
export class FleetThresholdsForm {
  draft = $state<ThresholdDraft | null>(null);
  errors = $state<Partial<Record<ThresholdKey, ThresholdError>>>({});
  /** Errors show after the first Save, not while the user types. */
  submitted = $state(false);
  saving = $state(false);
  /** The last save worked and nothing was typed since. */
  saved = $state(false);
  failure = $state<AppErrorShape | null>(null);
  /** Typed into since the last load or save: a save elsewhere must not overwrite what the user is typing. */
  private typed = false;

  constructor(private readonly api: ExposedApi) {}

  /**
   * Loads the thresholds and follows saves made in another window (`alerts:thresholds-changed`); returns the
   * unsubscribe. A form being typed into keeps its draft (its Save sends what the user typed).
   */
  start(): { loaded: Promise<void>; stop: () => void } {
    const stop = this.api.events.on('alerts:thresholds-changed', (values) => {
      if (!this.typed && !this.saving) this.apply(values);
    });
    return { loaded: this.load(), stop };
  }

  async load(): Promise<void> {
    const result = await this.api.alerts.thresholds();
    if (result.ok) {
      if (!this.typed) this.draft = draftOf(result.value);
    } else this.failure = result.error;
  }

  edited(): void {
    this.typed = true;
    this.saved = false;
    if (this.submitted && this.draft) this.errors = checkThresholdDraft(this.draft).errors;
  }

  /** Checks and saves; resolves to the field to focus when the draft has errors (null otherwise). */
  async save(): Promise<ThresholdKey | null> {
    if (!this.draft || this.saving) return null;
    this.submitted = true;
    const { errors, values } = checkThresholdDraft(this.draft);
    this.errors = errors;
    if (!values) return (Object.keys(errors)[0] as ThresholdKey | undefined) ?? null;
    this.saving = true;
    this.failure = null;
    try {
      const result = await this.api.alerts.setThresholds(values);
      if (!result.ok) {
        this.failure = result.error;
        return null;
      }
      this.typed = false;
      this.apply(result.value);
      this.saved = true;
      return null;
    } finally {
      this.saving = false;
    }
  }

  private apply(values: AlertThresholds): void {
    this.draft = draftOf(values);
  }
}
