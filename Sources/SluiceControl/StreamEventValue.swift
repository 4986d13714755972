import SluiceJSON

/// A value in an event's `data` (`MediaEvent`, `EventWords`): a JSON value, SluiceJSON's own,
/// as the signaling layer writes it. Objects are written with their keys sorted
/// (`MediaJSON.json`), so the same event always reads the same whatever order built it.
public typealias StreamEventValue = JSONValue
