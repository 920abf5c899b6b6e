#!/usr/bin/env python3
"""Calls one SOAP operation with zeep and prints the answer as JSON.

Usage:
    zeep_client.py WSDL_URL OPERATION [ARGUMENTS_JSON]

ARGUMENTS_JSON is a JSON object of the operation's request fields; when it is left out, it is
read from stdin. The request is built by zeep from the WSDL alone (it also gives the endpoint).

Exit status and stdout:
    0  the answer, zeep.helpers.serialize_object of the response, as JSON (dateTime as ISO 8601
       strings, xsd:decimal as JSON numbers where exact, else strings)
    2  a SOAP fault, as JSON {"faultcode": ..., "faultstring": ...}
    1  anything else (bad arguments, WSDL not readable, ...): a message on stderr
"""

import datetime
import decimal
import json
import sys

import requests
from zeep import Client, Settings
from zeep.exceptions import Fault
from zeep.helpers import serialize_object
from zeep.transports import Transport

MAX_SAFE_INTEGER = 2**53 - 1


class AnswerEncoder(json.JSONEncoder):
    """JSON for what zeep parses answers into: datetimes and decimals besides the plain types."""

    def default(self, o):
        if isinstance(o, (datetime.datetime, datetime.date, datetime.time)):
            return o.isoformat()
        if isinstance(o, decimal.Decimal):
            if o == o.to_integral_value() and abs(o) <= MAX_SAFE_INTEGER:
                return int(o)
            as_float = float(o)
            # A JSON number only when it reads back as the same decimal; else the exact text.
            return as_float if decimal.Decimal(repr(as_float)) == o else str(o)
        if isinstance(o, bytes):
            return o.decode("utf-8", "replace")
        return super().default(o)


def read_arguments(argv):
    text = argv[3] if len(argv) > 3 else sys.stdin.read()
    arguments = json.loads(text) if text.strip() else {}
    if not isinstance(arguments, dict):
        raise ValueError("the arguments must be a JSON object")
    return arguments


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    wsdl_url, operation = argv[1], argv[2]
    try:
        arguments = read_arguments(argv)
    except ValueError as error:
        print(f"zeep_client: bad arguments: {error}", file=sys.stderr)
        return 1

    session = requests.Session()
    # Loopback servers only: proxies from the environment must not be asked.
    session.trust_env = False
    transport = Transport(session=session, timeout=30, operation_timeout=120)
    client = Client(wsdl_url, transport=transport, settings=Settings(strict=True))
    try:
        answer = client.service[operation](**arguments)
    except Fault as fault:
        print(json.dumps({"faultcode": fault.code, "faultstring": fault.message}))
        return 2
    print(json.dumps(serialize_object(answer), cls=AnswerEncoder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
