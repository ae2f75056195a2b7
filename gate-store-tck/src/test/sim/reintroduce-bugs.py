# Puts back, one at a time, bugs fixed earlier in the engine, runs SimulationTest until the first
# failing seed (its step-by-step schedules for a bug of the step-by-step API), and restores the
# file. Usage: python3 reintroduce-bugs.py SCHEDULES [BUG ...]
# (from anywhere; the figures in docs/design.md, "Generated histories", come from it).
import subprocess, re, sys, os
E=os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../../gate-core/src/main/java')+'/dev/mcpgate/core/internal/engine/'
bugs = {
 'unknown-released': ('FailureSettler.java','    if (policy.isOutcomeUnknown(failure) || interrupted(failure)) {','    if (false && (policy.isOutcomeUnknown(failure) || interrupted(failure))) {'),
 'plain-failure-fenced': ('FailureSettler.java','    if (policy.isOutcomeUnknown(failure) || interrupted(failure)) {','    if (true || policy.isOutcomeUnknown(failure) || interrupted(failure)) {'),
 'unstored-released': ('FailureSettler.java','''        "the action ran but its result could not be stored",
        failure);
    return fence(''','''        "the action ran but its result could not be stored",
        failure);
    if (true) {
      release(claim, failure, "the result could not be stored");
      return false;
    }
    return fence('''),
 'fence-not-kept': ('FailureSettler.java','kept = fencer.fenceLater(renewal, policy, message, failure);','kept = false;'),
 'no-conflict': ('Claimer.java','    if (!ArgumentHasher.matches(row.argsHash(), hash)) {','    if (false) {'),
 'fenced-told-no-effect': ('AttemptRunner.java','''          FailureReason.OUTCOME_UNKNOWN,
          GateResult.Effect.UNKNOWN,
          policy.reconciler() != null,
          claim,
          "the action of "
              + claim.id()
              + " failed, and its outcome is unknown''','''          FailureReason.OUTCOME_UNKNOWN,
          GateResult.Effect.NO,
          policy.reconciler() != null,
          claim,
          "the action of "
              + claim.id()
              + " failed, and its outcome is unknown'''),
 'paused-holder-starts': ('AttemptRunner.java','leases.isClosed() ? null : leases.confirmBeforeAction(renewal, policy);','leases.isClosed() ? null : LeaseRenewer.Held.YES;'),
 'late-claim-not-renewed': ('LeaseRenewer.java','''    if (renewal.confirmedLeftNanos(now) - untilFirstRenewal + FIRST_TICK_SLACK_NANOS
        >= period.lease().toNanos() - period.every().toNanos()) {''','''    if (renewal.confirmedLeftNanos(now) > period.every().toNanos() + within.toNanos()) {'''),
 'reconciler-failure-taken-as-not-happened': ('Reconciliation.java','''      LOG.warn("reconciler failed for {}; the outcome stays unknown", id, e);
      return null;''','''      verdict = Reconciler.Verdict.notHappened();'''),
 'happened-taken-as-not-happened': ('Reconciliation.java','      return apply(policy, id, row, verdict, claimAgain);','      return apply(policy, id, row, verdict instanceof Reconciler.Verdict.Happened ? Reconciler.Verdict.notHappened() : verdict, claimAgain);'),
 'happened-not-stored': ('Reconciliation.java','    if (verdict instanceof Reconciler.Verdict.Happened happened) {','    if (verdict instanceof Reconciler.Verdict.Happened happened && false) {'),
 'renewal-stalls-takeover': ('RenewalGroup.java','''    t.givenUp = true;
    if (current == t) {
      current = null;
    }
    RuntimeException late =
        new IllegalStateException(
            "the store did not answer the renewal within " + within.toMillis() + " ms");
    for (Renewal r : t.batch) {
      r.failed(late, within.toMillis());
    }
    retry();''','''    RuntimeException late =
        new IllegalStateException(
            "the store did not answer the renewal within " + within.toMillis() + " ms");
    for (Renewal r : t.batch) {
      r.failed(late, within.toMillis());
    }'''),
 'late-step-claim-not-confirmed': ('GateEngine.java','''            || ticker.nanoTime() - sent <= LeaseRenewer.Period.of(policy).every().toNanos()) {''','''            || true) {''', 'steps'),
 'one-lease-fence': ('FenceWriter.java','store.markUnknown(claim.id(), claim.token(), policy.unknownFence())','store.markUnknown(claim.id(), claim.token(), policy.lease())'),
}
names = sys.argv[2:] or list(bugs)
n = sys.argv[1]
for name in names:
    f, old, new = bugs[name][:3]
    test = ['-Dtest=SimulationTest#everyStepByStepScheduleKeepsThePromise','-Dmcpgate.sim.stepSchedules='+n] if bugs[name][3:] else ['-Dtest=SimulationTest#everyScheduleKeepsThePromise','-Dmcpgate.sim.schedules='+n]
    p = E + f
    s = open(p).read()
    assert old in s, name
    open(p,'w').write(s.replace(old, new, 1))
    try:
        r = subprocess.run(['./mvnw','-q','-o','-pl','gate-core,gate-store-tck','test']+test+['-Dsurefire.failIfNoSpecifiedTests=false','-Dcheckstyle.skip','-Dspotless.check.skip=true'],cwd=os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../..'),capture_output=True,text=True)
        out = r.stdout + r.stderr
        m = re.search(r'\[seed (\d+)[ ,]', out)
        what = re.search(r'\n(k\d: [^\n]*)', out)
        print(name, 'FOUND at seed', m.group(1), '|', what.group(1) if what else '', flush=True) if m else print(name, 'not found in', n, '(rc', r.returncode, ')', out[-300:] if r.returncode else '', flush=True)
    finally:
        open(p,'w').write(s)
