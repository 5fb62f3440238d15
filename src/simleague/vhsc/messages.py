"""The protobuf messages of the humanoid virtual soccer API (specs/vhsc.md "Messages": proto3,
the field numbers of the original's messages.proto), built at import from the table below with
the protobuf runtime (no generated code, no protoc), and the ``.proto`` text of the same table for
teams that generate their own code (:func:`proto_source`).

    from simleague.vhsc.messages import ActuatorRequests, SensorMeasurements
    request = ActuatorRequests.FromString(payload)
    reply = SensorMeasurements(time=8, real_time=...)

Frames on the wire are a 4-byte big-endian length and the message's bytes
(:mod:`simleague.wire.framing`). Units as the original: ms, m/s^2, rad/s, N, rad.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError
from google.protobuf.message import Message as ProtoMessage

from .. import errors

F = descriptor_pb2.FieldDescriptorProto
_TYPES = {"double": F.TYPE_DOUBLE, "string": F.TYPE_STRING, "bool": F.TYPE_BOOL, "uint32": F.TYPE_UINT32,
          "uint64": F.TYPE_UINT64, "sint32": F.TYPE_SINT32, "bytes": F.TYPE_BYTES}

#: message -> [(field, type, number, repeated)], in the original's order; a type not in _TYPES
#: is a message (or, for MessageType, the enum)
SCHEMA: dict[str, list[tuple[str, str, int, bool]]] = {
    "Vector3": [("X", "double", 1, False), ("Y", "double", 2, False), ("Z", "double", 3, False)],
    "PositionSensorMeasurement": [("name", "string", 1, False), ("value", "double", 2, False)],
    "AccelerometerMeasurement": [("name", "string", 1, False), ("value", "Vector3", 2, False)],
    "BumperMeasurement": [("name", "string", 1, False), ("value", "bool", 2, False)],
    "CameraMeasurement": [("name", "string", 1, False), ("width", "uint32", 2, False),
                          ("height", "uint32", 3, False), ("quality", "sint32", 4, False),
                          ("image", "bytes", 5, False)],
    "ForceMeasurement": [("name", "string", 1, False), ("value", "double", 2, False)],
    "Force3DMeasurement": [("name", "string", 1, False), ("value", "Vector3", 2, False)],
    "Force6DMeasurement": [("name", "string", 1, False), ("force", "Vector3", 2, False),
                           ("torque", "Vector3", 3, False)],
    "GyroMeasurement": [("name", "string", 1, False), ("value", "Vector3", 2, False)],
    "Message": [("message_type", "MessageType", 1, False), ("text", "string", 2, False)],
    "SensorMeasurements": [("time", "uint32", 1, False), ("real_time", "uint64", 2, False),
                           ("messages", "Message", 3, True),
                           ("accelerometers", "AccelerometerMeasurement", 4, True),
                           ("bumpers", "BumperMeasurement", 5, True), ("cameras", "CameraMeasurement", 6, True),
                           ("forces", "ForceMeasurement", 7, True), ("force3ds", "Force3DMeasurement", 8, True),
                           ("force6ds", "Force6DMeasurement", 9, True), ("gyros", "GyroMeasurement", 10, True),
                           ("position_sensors", "PositionSensorMeasurement", 11, True)],
    "MotorPosition": [("name", "string", 1, False), ("position", "double", 2, False)],
    "MotorVelocity": [("name", "string", 1, False), ("velocity", "double", 2, False)],
    "MotorForce": [("name", "string", 1, False), ("force", "double", 2, False)],
    "MotorTorque": [("name", "string", 1, False), ("torque", "double", 2, False)],
    "MotorPID": [("name", "string", 1, False), ("PID", "Vector3", 2, False)],
    "SensorTimeStep": [("name", "string", 1, False), ("timeStep", "uint32", 2, False)],
    "CameraQuality": [("name", "string", 1, False), ("quality", "sint32", 2, False)],
    "CameraExposure": [("name", "string", 1, False), ("exposure", "double", 2, False)],
    "ActuatorRequests": [("motor_positions", "MotorPosition", 1, True),
                         ("motor_velocities", "MotorVelocity", 2, True),
                         ("motor_forces", "MotorForce", 3, True), ("motor_torques", "MotorTorque", 4, True),
                         ("motor_pids", "MotorPID", 5, True), ("sensor_time_steps", "SensorTimeStep", 6, True),
                         ("camera_qualities", "CameraQuality", 7, True),
                         ("camera_exposures", "CameraExposure", 8, True)],
}
MESSAGE_TYPES = {"ERROR_MESSAGE": 0, "WARNING_MESSAGE": 1}       # Message.MessageType
_FILE = "simleague_vhsc_messages.proto"


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name=_FILE, syntax="proto3")
    for name, fields in SCHEMA.items():
        message = f.message_type.add(name=name)
        if name == "Message":
            enum = message.enum_type.add(name="MessageType")
            for value, number in MESSAGE_TYPES.items():
                enum.value.add(name=value, number=number)
        for field, kind, number, repeated in fields:
            entry = message.field.add(name=field, number=number,
                                      label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
            if kind in _TYPES:
                entry.type = _TYPES[kind]
            elif kind == "MessageType":
                entry.type, entry.type_name = F.TYPE_ENUM, ".Message.MessageType"
            else:
                entry.type, entry.type_name = F.TYPE_MESSAGE, f".{kind}"
    return f


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file_descriptor())
_CLASSES = {name: message_factory.GetMessageClass(_POOL.FindMessageTypeByName(name)) for name in SCHEMA}

Vector3 = _CLASSES["Vector3"]
SensorMeasurements = _CLASSES["SensorMeasurements"]
ActuatorRequests = _CLASSES["ActuatorRequests"]
Message = _CLASSES["Message"]                  # a text for the client: warning or error
WARNING_MESSAGE, ERROR_MESSAGE = MESSAGE_TYPES["WARNING_MESSAGE"], MESSAGE_TYPES["ERROR_MESSAGE"]


def message_class(name: str) -> type[ProtoMessage]:
    """The class of message ``name`` (a key of :data:`SCHEMA`); KeyError for another."""
    return _CLASSES[name]


class RequestError(errors.Error, ValueError):
    """Bytes that are not an ``ActuatorRequests`` message."""


def parse_requests(payload: bytes) -> ProtoMessage:
    """An ``ActuatorRequests`` from one frame's bytes. Raises :class:`RequestError` with what
    protobuf found wrong."""
    try:
        return ActuatorRequests.FromString(payload)
    except DecodeError as e:
        raise RequestError(f"not an ActuatorRequests message: {e}") from None


def proto_source() -> str:
    """The ``.proto`` text of :data:`SCHEMA`, for teams that generate code with protoc."""
    lines = ['syntax = "proto3";', ""]
    for name, fields in SCHEMA.items():
        lines.append(f"message {name} {{")
        if name == "Message":
            lines.append("  enum MessageType {")
            lines += [f"    {value} = {number};" for value, number in MESSAGE_TYPES.items()]
            lines.append("  }")
        for field, kind, number, repeated in fields:
            lines.append(f"  {'repeated ' if repeated else ''}{kind} {field} = {number};")
        lines += ["}", ""]
    return "\n".join(lines)
