@testable import GPSD
import Geo
import Testing

@Suite struct EpochMerging {
    static func tpv(_ second: Int64, mode: FixMode = .threeD) -> GPSDReport {
        var f = Fix(mode: mode, coordinate: mode >= .twoD ? Coordinate(latitude: 40.1, longitude: -8.24) : nil)
        f.time = UTCTime(nanoseconds: 1_777_600_000_000_000_000 + second * 1_000_000_000)
        return .position(f)
    }

    static func gst(_ second: Int64, _ lat: Double, _ lon: Double) -> GPSDReport {
        .errors(time: UTCTime(nanoseconds: 1_777_600_000_000_000_000 + second * 1_000_000_000), latitude: lat, longitude: lon)
    }

    /// A stream without GST loses a quarter of a second at most; once GST has been seen, a fix
    /// waits longer for its own, so a stall does not send it without its error estimate.
    @Test func patienceGrowsOnceTheStreamHasGST() {
        var m = EpochMerger()
        #expect(m.patience == 0.25)
        _ = m.take(Self.tpv(1))
        #expect(m.patience == 0.25, "a TPV alone says nothing of GST")
        _ = m.take(Self.gst(1, 3, 4))
        #expect(m.patience == 1.5)
    }

    @Test func aTPVTakesTheErrorOfTheGSTOfItsTime() {
        var m = EpochMerger()
        #expect(m.take(Self.tpv(1)).isEmpty, "waits for its GST")
        let out = m.take(Self.gst(1, 3, 4))
        #expect(out.count == 1)
        #expect(out.first?.horizontalError == 5, "√(3² + 4²), as replay computes it from GST")
        #expect(m.flush() == nil)
    }

    @Test func aGSTOfAnotherTimeIsNotTaken() {
        var m = EpochMerger()
        _ = m.take(Self.tpv(2))
        #expect(m.take(Self.gst(1, 3, 4)).isEmpty)
        let next = m.take(Self.tpv(3))
        #expect(next.count == 1 && next.first?.horizontalError == nil && next.first?.time == UTCTime(nanoseconds: 1_777_600_002_000_000_000),
                "the next TPV sends the waiting one on without an error estimate")
    }

    @Test func withoutGSTTheFixGoesOutAtTheNextTPVOrWhenQuiet() {
        var m = EpochMerger()
        _ = m.take(.sky(time: nil, hdop: 0.9, pdop: 1.6, vdop: 1.2, satellitesUsed: 9))
        _ = m.take(Self.tpv(1, mode: .noFix))
        _ = m.take(.other)
        let quiet = m.flush()
        #expect(quiet?.mode == .noFix && quiet?.coordinate == nil)
        #expect(quiet?.hdop == 0.9 && quiet?.satellitesUsed == 9, "DOPs and satellites from the last SKY")
        #expect(m.flush() == nil, "each fix once")
    }
}

extension EpochMerging {
    @Test func aGSTBeforeItsTPVCountsToo() {
        // gpsd sends the u-blox F9P's GST before the TPV of the same second.
        var m = EpochMerger()
        _ = m.take(Self.gst(1, 3, 4))
        let out = m.take(Self.tpv(1))
        #expect(out.count == 1 && out.first?.horizontalError == 5)
    }

    @Test func anEpochReportedAgainGoesOutOnce() {
        // While gpsd learns the cycle ender it reports the first epoch again (7 times for the F9P),
        // the first copy mode 2 without altitude: the last one before its GST is the fix.
        var m = EpochMerger()
        _ = m.take(Self.tpv(1, mode: .twoD))
        _ = m.take(Self.tpv(1))
        let out = m.take(Self.gst(1, 3, 4))
        #expect(out.count == 1 && out.first?.mode == .threeD && out.first?.horizontalError == 5)
        #expect(m.take(Self.tpv(1)).isEmpty && m.flush() == nil, "a copy after the fix went out is dropped")
        _ = m.take(Self.tpv(2))
        #expect(m.flush()?.time == UTCTime(nanoseconds: 1_777_600_002_000_000_000))
    }

    @Test func dopsComeFromTheSKYOfTheFixsEpoch() {
        let t1 = UTCTime(nanoseconds: 1_777_600_001_000_000_000), t2 = UTCTime(nanoseconds: 1_777_600_002_000_000_000)
        var m = EpochMerger()
        _ = m.take(.sky(time: t1, hdop: 0.7, pdop: nil, vdop: nil, satellitesUsed: 12))
        _ = m.take(Self.tpv(1))
        _ = m.take(.sky(time: t2, hdop: 0.6, pdop: nil, vdop: nil, satellitesUsed: 16))  // the next epoch's, early
        let first = m.take(Self.tpv(2))
        #expect(first.first?.hdop == 0.7 && first.first?.satellitesUsed == 12)
        #expect(m.flush()?.hdop == 0.6)
    }
}

@Suite struct ReconnectDelays {
    @Test func doubleFromATenthToAtMostTenSecondsAndStartAgainAfterAConnection() {
        var b = Backoff()
        let delays = (0..<10).map { _ in b.delay() }
        #expect(delays.map { ($0 * 1000).rounded() } == [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000])
        b.reset()
        #expect(b.delay() == 0.1)
    }
}

extension EpochMerging {
    /// The last fix before gpsd falls quiet goes out after its patience, counted from its own
    /// TPV: reports that are not positions (SKY, DEVICE) do not hold it back.
    @Test func aPendingFixIsDueAfterItsPatienceWhateverElseComes() {
        var m = EpochMerger()
        #expect(m.take(Self.tpv(1), at: 10.0).isEmpty)
        _ = m.take(.sky(time: nil, hdop: 0.9, pdop: 1.6, vdop: 1.2, satellitesUsed: 9), at: 10.2)
        #expect(m.due(at: 10.2) == nil)
        #expect(m.timeUntilDue(at: 10.2).map { abs($0 - 0.05) < 1e-9 } == true)
        _ = m.take(.other, at: 10.24)
        let out = m.due(at: 10.26)
        #expect(out?.time == UTCTime(nanoseconds: 1_777_600_001_000_000_000) && out?.hdop == 0.9)
        #expect(m.due(at: 20) == nil && m.timeUntilDue(at: 20) == nil, "once")
        // A repeat of the same epoch keeps the time its wait began.
        _ = m.take(Self.gst(2, 3, 4), at: 30)
        _ = m.take(Self.tpv(3), at: 31.0)
        _ = m.take(Self.tpv(3), at: 32.0)
        #expect(m.due(at: 32.4) == nil)
        #expect(m.due(at: 32.6) != nil, "1.5 s after the first TPV of second 3, not after its repeat")
    }
}

extension EpochMerging {
    static func time(_ second: Int64) -> UTCTime { UTCTime(nanoseconds: 1_777_600_000_000_000_000 + second * 1_000_000_000) }

    /// A receiver that sends nothing after its TPV (no GST, no satellites view): after three such
    /// epochs each fix goes out at its own TPV, not at the next one or a quarter of a second later.
    @Test func aQuietStreamSendsEachFixAtItsTPVAfterThreeEpochs() {
        var m = EpochMerger()
        #expect(m.take(Self.tpv(1)).isEmpty)
        #expect(m.take(Self.tpv(2)).map(\.time) == [Self.time(1)])
        #expect(m.take(Self.tpv(3)).map(\.time) == [Self.time(2)])
        #expect(!m.sendsAtTPV)
        #expect(m.take(Self.tpv(4)).map(\.time) == [Self.time(3), Self.time(4)], "the third quiet epoch out, then the fourth at once")
        #expect(m.take(Self.tpv(5)).map(\.time) == [Self.time(5)])
        #expect(m.flush() == nil && m.timeUntilDue(at: 0) == nil, "nothing left waiting")
    }

    /// What comes for an epoch after its fix went out at the TPV ends the trust: the stream waits
    /// again until it has shown three quiet epochs.
    @Test func somethingLateForAnEpochMakesTheStreamWaitAgain() {
        func trusted() -> EpochMerger {
            var m = EpochMerger()
            for s in Int64(1)...4 { _ = m.take(Self.tpv(s)) }
            return m
        }
        var repeated = trusted()
        #expect(repeated.sendsAtTPV)
        #expect(repeated.take(Self.tpv(4)).isEmpty, "a copy of an epoch already out")
        #expect(repeated.take(Self.tpv(5)).isEmpty, "waits again")

        var sky = trusted()
        _ = sky.take(.sky(time: Self.time(4), hdop: 0.8, pdop: nil, vdop: nil, satellitesUsed: 10))
        #expect(sky.take(Self.tpv(5)).isEmpty)
        var early = trusted()
        _ = early.take(.sky(time: Self.time(5), hdop: 0.8, pdop: nil, vdop: nil, satellitesUsed: 10))
        #expect(early.take(Self.tpv(5)).first?.hdop == 0.8, "a SKY of the coming epoch, before its TPV, is no reason to wait")

        var gst = trusted()
        _ = gst.take(Self.gst(4, 3, 4))
        #expect(gst.take(Self.tpv(5)).isEmpty && gst.patience == 1.5, "a stream with GST waits for it")
    }

    /// gpsd's SKY from NMEA carries no time: where it falls between TPVs it cannot be told which
    /// epoch it belongs to, so such a stream keeps waiting and each fix takes the SKY after it.
    @Test func aStreamWithUntimedSKYKeepsWaiting() {
        var m = EpochMerger()
        var out: [Fix] = []
        for s in Int64(1)...8 {
            out += m.take(Self.tpv(s))
            _ = m.take(.sky(time: nil, hdop: Double(s) / 10, pdop: nil, vdop: nil, satellitesUsed: 9))
        }
        #expect(!m.sendsAtTPV)
        #expect(out.count == 7 && out.allSatisfy { f in f.hdop == f.time.map { Double(($0.nanoseconds - 1_777_600_000_000_000_000) / 1_000_000_000) / 10 } })
    }

    /// A receiver that sends GST only once it has a fix (as the walk's does): the epochs before
    /// its first fix are no evidence of a stream without GST, so the first fix waits for its GST.
    @Test func epochsWithoutAFixAreNoEvidence() {
        var m = EpochMerger()
        for s in Int64(1)...6 { _ = m.take(Self.tpv(s, mode: .noFix)) }
        #expect(!m.sendsAtTPV)
        #expect(m.take(Self.tpv(7)).map(\.time) == [Self.time(6)], "the last no-fix epoch out; the fix waits")
        let out = m.take(Self.gst(7, 3, 4))
        #expect(out.count == 1 && out.first?.horizontalError == 5, "with its error estimate, as a replay has it")
    }
}
