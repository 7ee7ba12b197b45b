enum Page {
    static let html = WebResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array("<!doctype html>".utf8))
    static let script = WebResponse(status: 200, contentType: "text/javascript; charset=utf-8", body: [])
    static let style = WebResponse(status: 200, contentType: "text/css; charset=utf-8", body: [])
}
