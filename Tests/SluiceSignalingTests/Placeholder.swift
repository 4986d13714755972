import Testing

@Test func placeholder_SluiceSignalingTests() { #expect(true) }
