enum OpenAPI {
    static let document = "{}"
}
