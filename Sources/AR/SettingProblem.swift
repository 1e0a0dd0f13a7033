#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One thing wrong with a camera or the layout options, worded for a user, and which setting.
public struct SettingProblem: Sendable, Equatable, CustomStringConvertible {
    /// The setting a problem is about.
    public enum Setting: Sendable, Equatable {
        /// `screen` and `box`: width and height; `sizes`: the boxes of their own size; `fieldOfView`: either angle; the others: the field of
        /// that name.
        case screen, fieldOfView, heading, pitch, box, sizes, offset, maxDistance, maxVisible, maxLevels
    }

    /// Which setting is wrong.
    public var setting: Setting
    /// What is wrong and what is allowed, worded for a user.
    public var message: String
    /// The message.
    public var description: String { message }

    /// A problem with `setting`, worded as `message`.
    public init(_ setting: Setting, _ message: String) {
        self.setting = setting
        self.message = message
    }
}
