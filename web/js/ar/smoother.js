// Heading and pitch smoothing: a port of Sources/AR/AngleSmoother.swift and
// OrientationSmoother.swift, with the same semantics and numbers.
//
// A low-pass filter for one angle: each sample moves the smoothed value `factor` of the way
// towards it, value += factor·(sample − value). A heading is filtered on the circle (the step is
// wrapped into (−180, 180], so 350 → 10 gives 358.0, then 2.8, then 5.68; the value stays in
// [0, 360)); a pitch on the line. The first sample is taken as it is; during the first
// `settlingSeconds` after it, a sample more than `jumpDegrees` from the previous *sample* is taken
// as it is too (a settling compass must not sweep the boxes slowly across the screen).

export class AngleSmoother {
  constructor({ factor = 0.4, circular, jumpDegrees = 20, settlingSeconds = 10 } = {}) {
    if (!(factor > 0 && factor <= 1)) throw new RangeError("a smoothing factor is more than 0 and at most 1 (1: no smoothing)");
    this.factor = factor;
    this.circular = Boolean(circular);
    this.jumpDegrees = jumpDegrees;
    this.settlingSeconds = settlingSeconds;
    this.value = null;      // the smoothed angle; null before the first sample
    this.firstTime = null;
    this.lastSample = null;
  }

  /** Adds a sample taken at `time` (seconds, any monotonic clock); returns the smoothed angle. */
  add(sample, time) {
    const s = this.circular ? AngleSmoother.normalized(sample) : sample;
    const current = this.value;
    const first = this.firstTime;
    const last = this.lastSample;
    this.lastSample = s;
    if (current === null || first === null || last === null) {
      this.firstTime = time;
      this.value = s;
      return s;
    }
    if (time - first < this.settlingSeconds && Math.abs(this.difference(s, last)) > this.jumpDegrees) {
      this.value = s;
      return s;
    }
    let v = current + this.factor * this.difference(s, current);
    if (this.circular) v = AngleSmoother.normalized(v);
    this.value = v;
    return v;
  }

  /** a − b, wrapped into (−180, 180] for a circular angle. */
  difference(a, b) {
    if (!this.circular) return a - b;
    const d = AngleSmoother.normalized(a - b);
    return d > 180 ? d - 360 : d;
  }

  /** Into [0, 360) (Swift's truncatingRemainder is JavaScript's %). */
  static normalized(a) {
    const r = a % 360;
    const v = r < 0 ? r + 360 : r;
    return v === 360 ? 0 : v;
  }
}

/** Heading (on the circle) and pitch (on the line), each by its own AngleSmoother. */
export class OrientationSmoother {
  constructor({ factor = 0.4, jumpDegrees = 20, settlingSeconds = 10 } = {}) {
    this.heading = new AngleSmoother({ factor, circular: true, jumpDegrees, settlingSeconds });
    this.pitch = new AngleSmoother({ factor, circular: false, jumpDegrees, settlingSeconds });
  }

  /** Adds a heading and a pitch sampled at `time` (seconds); returns [heading, pitch] smoothed. */
  add(heading, pitch, time) {
    return [this.heading.add(heading, time), this.pitch.add(pitch, time)];
  }
}
