/// The page alarm-web serves at `/`: one mobile-first page, its script and its style, and the
/// API's OpenAPI 3 description, kept as the files they are sent as (`Resources/`: index.html,
/// app.js, app.css, openapi.json) and embedded in the binary at build time (SwiftPM's
/// `.embedInCode`). No build step, nothing from a CDN; the script talks to the JSON API only and
/// the Content-Security-Policy lets the page run nothing else. WebTests checks that the
/// OpenAPI document names every route.
enum Page {
    static let html = WebResponse(
        status: 200, contentType: "text/html; charset=utf-8", body: PackageResources.index_html)
    static let script = WebResponse(
        status: 200, contentType: "text/javascript; charset=utf-8", body: PackageResources.app_js)
    static let style = WebResponse(status: 200, contentType: "text/css; charset=utf-8", body: PackageResources.app_css)
    static let openAPI = WebResponse(
        status: 200, contentType: "application/json; charset=utf-8", body: PackageResources.openapi_json)
}
