import type { ExposedApi } from '../../../../electron/shared/api';
import type { AppErrorShape } from '../../../../electron/shared/errors';
import type { DoctorReport } from '../../../../electron/shared/schemas-profiles';

/**
 * The last preflight report of each profile (the backend keeps them for this run and pushes each new
 * one as `doctor:report`, also when Start ran the doctor), and the Run action with its busy flag.
 */
export class DoctorState {
  reports = $state<Record<string, DoctorReport>>({});
  running = $state<Record<string, boolean>>({});
  errors = $state<Record<string, AppErrorShape>>({});

  constructor(private readonly api: ExposedApi) {}

  start(): () => void {
    void this.api.doctor.reports().then((result) => {
      if (!result.ok) return;
      // A report pushed while this list was on its way is newer: keep it.
      for (const report of result.value) if (!this.reports[report.profileId]) this.reports[report.profileId] = report;
    });
    return this.api.events.on('doctor:report', (report) => {
      this.reports[report.profileId] = report;
    });
  }

  async run(profileId: string): Promise<DoctorReport | null> {
    if (this.running[profileId]) return null;
    this.running[profileId] = true;
    delete this.errors[profileId];
    const result = await this.api.doctor.run({ profileId });
    delete this.running[profileId];
    if (!result.ok) {
      this.errors[profileId] = result.error;
      return null;
    }
    // A newer report may have been pushed meanwhile (Start ran the doctor again): keep the newest.
    const current = this.reports[profileId];
    if (!current || current.ranAt <= result.value.ranAt) this.reports[profileId] = result.value;
    return result.value;
  }
}
