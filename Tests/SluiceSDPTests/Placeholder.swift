import Testing

@Test func placeholder_SluiceSDPTests() { #expect(true) }
