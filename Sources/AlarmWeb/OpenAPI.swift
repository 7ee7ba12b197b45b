/// The API's description, OpenAPI 3 (`GET /api/openapi.json`): every endpoint, its
/// credentials, bodies, answers and errors. WebTests checks that it names every route.
enum OpenAPI {
    static let document = #"""
{
  "openapi": "3.0.3",
  "info": {
    "title": "alarm-web",
    "version": "1",
    "description": "The JSON API of alarm-web (issue #14). Every endpoint but this document, the page and POST /api/session needs credentials: 'Authorization: Bearer TOKEN' (the token of /etc/alarm/web-token; alarm web-token prints it), or the page's session cookie, with the session's CSRF token as X-CSRF-Token on every POST and DELETE. After 5 failed sign-ins in a minute from one address every request from it gets 429. Errors are {\"error\": \"message\"}; the messages are the CLI's. Bodies over 64 KiB get 413."
  },
  "security": [{"bearer": []}, {"session": [], "csrf": []}],
  "paths": {
    "/api/status": {
      "get": {
        "summary": "alarm status --json: what alarmd is doing (status.json with 'running')",
        "responses": {
          "200": {
            "description": "The status",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"}
        }
      }
    },
    "/api/alarms": {
      "get": {
        "summary": "alarm list --json",
        "responses": {
          "200": {
            "description": "Every alarm",
            "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Alarm"}}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"}
        }
      },
      "post": {
        "summary": "alarm add: add an alarm, or replace the one with the same id",
        "description": "One object with the fields of alarm list --json (id, expression or at, zone, label, sound, once, snooze, ring, volume, fade_in, skip_next); an empty id gets alarm-N; created, mode and next are ignored. 201 when added, 200 when it replaced one; X-Alarm-Warning names a sound that will not play.",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Alarm"}}}},
        "responses": {
          "200": {
            "description": "Replaced",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Alarm"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "201": {
            "description": "Added",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Alarm"}}}
          },
          "400": {
            "description": "Bad input: not JSON, not an alarm, a bad expression, zone, id or sound, or an alarm that never rings",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "413": {
            "description": "Body over 64 KiB",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          }
        }
      }
    },
    "/api/alarms/{id}": {
      "parameters": [{"$ref": "#/components/parameters/AlarmId"}],
      "get": {
        "summary": "One alarm, as in alarm list --json",
        "responses": {
          "200": {
            "description": "The alarm",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Alarm"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      },
      "delete": {
        "summary": "alarm remove ID",
        "responses": {
          "200": {
            "description": "Removed",
            "content": {"application/json": {"schema": {"type": "object", "properties": {"removed": {"type": "string"}}}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/alarms/{id}/skip": {
      "parameters": [{"$ref": "#/components/parameters/AlarmId"}],
      "post": {
        "summary": "alarm skip ID: the next occurrence does not ring",
        "responses": {
          "200": {
            "description": "The alarm after",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Alarm"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/alarms/{id}/unskip": {
      "parameters": [{"$ref": "#/components/parameters/AlarmId"}],
      "post": {
        "summary": "alarm unskip ID",
        "responses": {
          "200": {
            "description": "The alarm after",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Alarm"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "404": {"$ref": "#/components/responses/NotFound"}
        }
      }
    },
    "/api/next": {
      "get": {
        "summary": "alarm next --json",
        "responses": {
          "200": {
            "description": "The next ring, or null",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "nullable": true,
                  "properties": {
                    "id": {"type": "string"},
                    "at": {"type": "string", "format": "date-time"},
                    "in": {"type": "integer", "description": "seconds"}
                  }
                }
              }
            }
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"}
        }
      }
    },
    "/api/history": {
      "get": {
        "summary": "alarm history --json",
        "responses": {
          "200": {
            "description": "One entry per ring, oldest first",
            "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object"}}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"}
        }
      }
    },
    "/api/preview": {
      "get": {
        "summary": "alarm preview EXPR --count N --zone ZONE [--every D --from DATE --until DATE --skip-holidays] --json",
        "parameters": [
          {
            "name": "expr",
            "in": "query",
            "required": true,
            "schema": {"type": "string"},
            "example": "Mon..Fri 06:30"
          },
          {
            "name": "count",
            "in": "query",
            "schema": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 5}
          },
          {
            "name": "zone",
            "in": "query",
            "schema": {"type": "string"},
            "description": "The zone a floating expression is read in (default: the system zone)"
          },
          {
            "name": "every",
            "in": "query",
            "schema": {"type": "string"},
            "description": "As alarm add --every: 2w, 3d, 90m",
            "example": "2w"
          },
          {
            "name": "from",
            "in": "query",
            "schema": {"type": "string"},
            "description": "As alarm add --from: YYYY-MM-DD, YYYY-MM-DDTHH:MM or RFC 3339"
          },
          {
            "name": "until",
            "in": "query",
            "schema": {"type": "string"},
            "description": "As alarm add --until"
          },
          {
            "name": "skip_holidays",
            "in": "query",
            "schema": {"type": "boolean", "default": false},
            "description": "Leave out the days of the config's holidays file"
          }
        ],
        "responses": {
          "200": {
            "description": "The next rings, RFC 3339",
            "content": {"application/json": {"schema": {"type": "array", "items": {"type": "string", "format": "date-time"}}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "400": {
            "description": "A bad expression, count or zone, or one that never rings",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          }
        }
      }
    },
    "/api/snooze": {
      "post": {
        "summary": "alarm snooze [DURATION]",
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {"schema": {"type": "object", "properties": {"duration": {"type": "string", "example": "5m"}}}}
          }
        },
        "responses": {
          "200": {
            "description": "Snoozed: the status after",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "400": {
            "description": "A bad duration",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "409": {
            "description": "Nothing rings, or the ring was snoozed as often as max_snoozes allows (snooze refused: it keeps ringing)",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/api/stop": {
      "post": {
        "summary": "alarm stop",
        "responses": {
          "200": {
            "description": "Stopped: the status after",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "409": {"$ref": "#/components/responses/NothingRings"},
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/api/ring": {
      "post": {
        "summary": "alarm ring [--sound NAME]: ring now",
        "requestBody": {
          "required": false,
          "content": {"application/json": {"schema": {"type": "object", "properties": {"sound": {"type": "string"}}}}}
        },
        "responses": {
          "200": {
            "description": "Ringing: the status after",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"},
          "400": {
            "description": "A bad sound name",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "409": {
            "description": "alarmd did not confirm",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "503": {"$ref": "#/components/responses/Unavailable"}
        }
      }
    },
    "/api/session": {
      "post": {
        "summary": "The page's sign-in",
        "security": [],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {"schema": {"type": "object", "required": ["token"], "properties": {"token": {"type": "string"}}}}
          }
        },
        "responses": {
          "200": {
            "description": "Signed in: the session cookie (HttpOnly, SameSite=Strict) is set; send csrf as X-CSRF-Token",
            "content": {"application/json": {"schema": {"type": "object", "properties": {"csrf": {"type": "string"}}}}}
          },
          "400": {
            "description": "No token in the body",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "401": {
            "description": "Wrong token",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          },
          "429": {
            "description": "Too many failed sign-ins",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
          }
        }
      },
      "get": {
        "summary": "The session's CSRF token (for a page that was reloaded)",
        "responses": {
          "200": {
            "description": "The CSRF token (null when called with the Bearer token)",
            "content": {
              "application/json": {"schema": {"type": "object", "properties": {"csrf": {"type": "string", "nullable": true}}}}
            }
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"}
        }
      },
      "delete": {
        "summary": "Sign out",
        "responses": {
          "200": {
            "description": "Signed out; the cookie is cleared",
            "content": {"application/json": {"schema": {"type": "object"}}}
          },
          "401": {"$ref": "#/components/responses/Unauthorized"},
          "429": {"$ref": "#/components/responses/TooMany"}
        }
      }
    },
    "/api/openapi.json": {"get": {"summary": "This document", "security": [], "responses": {"200": {"description": "OpenAPI 3"}}}}
  },
  "components": {
    "securitySchemes": {
      "bearer": {"type": "http", "scheme": "bearer"},
      "session": {"type": "apiKey", "in": "cookie", "name": "alarm_session"},
      "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"}
    },
    "parameters": {
      "AlarmId": {
        "name": "id",
        "in": "path",
        "required": true,
        "schema": {"type": "string"},
        "description": "The alarm's id (percent-encoded)."
      }
    },
    "responses": {
      "Unavailable": {
        "description": "alarmd is not running, or alarm-web may not write its FIFO",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "NothingRings": {
        "description": "Nothing rings or snoozes",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "NotFound": {
        "description": "No alarm with that id",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "Error": {
        "description": "An error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "Unauthorized": {
        "description": "No or wrong credentials, or a POST or DELETE of the page without its CSRF token",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      },
      "TooMany": {
        "description": "Too many failed sign-ins from this address in a minute; Retry-After says when to try again",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
      }
    },
    "schemas": {
      "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
      "Alarm": {
        "type": "object",
        "required": ["id"],
        "description": "The format of alarm list --json and alarm export",
        "properties": {
          "id": {"type": "string"},
          "expression": {"type": "string", "example": "Mon..Fri *-*-* 06:30:00"},
          "at": {"type": "string", "format": "date-time"},
          "zone": {"type": "string", "nullable": true},
          "mode": {"type": "string", "enum": ["floating", "pinned", "absolute"]},
          "label": {"type": "string", "nullable": true},
          "sound": {"type": "string", "nullable": true},
          "once": {"type": "boolean"},
          "snooze": {"type": "number", "nullable": true},
          "ring": {"type": "number", "nullable": true},
          "volume": {"type": "integer", "nullable": true, "minimum": 0, "maximum": 100},
          "fade_in": {"type": "number", "nullable": true},
          "skip_next": {"type": "boolean"},
          "created": {"type": "string", "format": "date-time"},
          "every": {"type": "string", "description": "Rings every Nth occurrence of the interval (2w, 3d, 90m), counted from `from`"},
          "from": {"type": "string", "description": "The first day (YYYY-MM-DD) or instant the alarm may ring"},
          "until": {"type": "string", "description": "The last day or instant the alarm may ring"},
          "skip_holidays": {"type": "boolean"},
          "volume_from": {"type": "integer", "nullable": true, "minimum": 0, "maximum": 100, "description": "The fade-in starts at this volume (default 0)"},
          "max_snoozes": {"nullable": true, "oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": ["unlimited"]}]},
          "when_ignored": {"type": "string", "nullable": true, "enum": ["snooze", "silence"]},
          "paused": {"type": "boolean"},
          "paused_until": {"type": "string", "description": "Paused until this day or instant (alarm pause --until)"},
          "next": {"type": "string", "format": "date-time", "nullable": true}
        }
      },
      "Status": {
        "type": "object",
        "properties": {
          "running": {"type": "boolean"},
          "state": {"type": "string", "enum": ["idle", "ringing", "snoozed"]},
          "alarm": {"type": "string", "nullable": true},
          "sound": {"type": "string", "nullable": true},
          "reason": {"type": "string", "nullable": true},
          "snoozed_until": {"type": "string", "format": "date-time", "nullable": true},
          "label": {"type": "string", "nullable": true},
          "snoozes": {"type": "integer", "nullable": true, "description": "How often this ring was snoozed"},
          "max_snoozes": {"type": "integer", "nullable": true, "description": "Its snooze limit; null: unlimited"},
          "next": {
            "type": "object",
            "nullable": true,
            "properties": {"id": {"type": "string"}, "at": {"type": "string", "format": "date-time"}}
          },
          "warnings": {"type": "array", "items": {"type": "string"}}
        }
      }
    }
  }
}
"""#
}
