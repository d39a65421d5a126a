"""Persisted records as types: a tune's decision (`tune.TuneRecord`) and a candidate's
measurement (`measurement.CandidateMeasurement`), each with the one decoder for JSON from
anywhere (the store, a bundle, a remote, a fleet's ledger).

Below the store in the layer order, so the store's own readers decode through the same
types as every other reader instead of checking dict keys of their own."""
