import Testing

@Test func placeholder_SluiceServerTests() { #expect(true) }
