import Geo
import JSON

extension TrailBook {
    /// `{"class":"TRAILS","active":…,"trails":[…]}`: the run under way (trail, next checkpoint,
    /// when it started, metres walked) or null, and each trail's definition with when it was
    /// last completed, whether it is locked (a required trail not completed) and its checkpoints
    /// no longer in force (`missing`, from `inForce`).
    public func reply(inForce: (String) -> Bool) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "TRAILS")
            o.member("active") { w in
                guard let r = run, let t = trail(r.trail) else { return w.null() }
                w.object { o in
                    o.member("trail", r.trail)
                    o.member("name", t.name)
                    o.member("next", r.next)
                    o.member("of", t.checkpoints.count)
                    o.member("next_region", t.checkpoints[min(r.next, t.checkpoints.count - 1)].region)
                    if let a = t.checkpoints[min(r.next, t.checkpoints.count - 1)].action { o.member("action", a.rawValue) }
                    o.member("started", r.started.iso8601)
                    o.member("walked_m", r.walked, decimals: 1)
                    o.member("out_of_order", r.outOfOrder)
                }
            }
            o.member("trails") { w in
                w.array(trails) { w, t in
                    w.object { o in
                        t.writeMembers(&o)
                        if let c = completed[t.id] { o.member("completed", c.iso8601) } else { o.name("completed"); o.null() }
                        o.member("locked", t.requires.contains { completed[$0] == nil })
                        let missing = t.checkpoints.map(\.region).filter { !inForce($0) }
                        if !missing.isEmpty { o.member("missing") { $0.array(missing) { $0.value($1) } } }
                    }
                }
            }
        }
    }
}
