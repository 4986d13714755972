import Testing

@Test func placeholder_SluiceRTPTests() { #expect(true) }
