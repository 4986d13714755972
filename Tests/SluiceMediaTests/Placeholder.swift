import Testing

@Test func placeholder_SluiceMediaTests() { #expect(true) }
