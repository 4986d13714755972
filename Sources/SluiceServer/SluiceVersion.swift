public enum SluiceVersion {
    public static let string = "0.1.0"
}
