import Testing

@Test func placeholder_SluiceTransportTests() { #expect(true) }
